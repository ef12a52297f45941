"""The stream hub's stop (datahub/platform/serving/streams.py): every stream handed over
ends with the chunked body's last chunk, also one handed over as the hub stops. (Under
gunicorn, a graceful stop waits for the request threads, one of which may be handing its
stream over, and then stops the hub: tests/e2e/test_event_stream.py.)"""

import socket

from datahub.platform.serving.streams import StreamHub

LAST_CHUNK = b"0\r\n\r\n"


def nothing_to_send(subscribers):
    return {}, {}


def read_to_end(sock):
    sock.settimeout(5)
    received = b""
    while data := sock.recv(4096):
        received += data
    return received


def test_a_stream_handed_over_as_the_hub_stops_still_gets_its_last_chunk():
    hub = StreamHub(nothing_to_send, poll=0.05)
    ours, theirs = socket.socketpair()
    hub.stopping = True  # the stop has begun; the hub's thread has not seen it yet
    hub.adopt(ours, "subscriber")  # wakes the thread, which then leaves its loop
    hub.thread.join(timeout=5)
    assert not hub.thread.is_alive()
    assert read_to_end(theirs) == LAST_CHUNK


def test_a_stream_handed_over_after_the_hub_stopped_gets_its_last_chunk():
    hub = StreamHub(nothing_to_send, poll=0.05)
    hub.close()
    ours, theirs = socket.socketpair()
    hub.adopt(ours, "subscriber")
    assert read_to_end(theirs) == LAST_CHUNK


def test_open_streams_end_with_their_last_chunk_when_the_hub_closes():
    hub = StreamHub(nothing_to_send, poll=0.05)
    pairs = [socket.socketpair() for _ in range(3)]
    for ours, _ in pairs:
        hub.adopt(ours, "subscriber")
    hub.close()
    assert [read_to_end(theirs) for _, theirs in pairs] == [LAST_CHUNK] * 3
