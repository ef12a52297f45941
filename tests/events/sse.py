"""Reading Server-Sent Events in tests: messages (``id``, ``data`` as JSON) and comments,
parsed from whatever chunks the stream gives, until a deadline."""

import json
import time


class SSEReader:
    """Feed it bytes; it keeps what was parsed: ``messages`` (``{"id", "data"}``) and
    ``comments`` (the text after ``:``), ``retry`` when sent."""

    def __init__(self):
        self.buffer = b""
        self.messages, self.comments, self.retry = [], [], None

    def feed(self, data):
        self.buffer += data.replace(b"\r\n", b"\n")
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            message = {}
            for line in block.decode().split("\n"):
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "":
                    self.comments.append(value)
                elif field == "retry":
                    self.retry = int(value)
                elif field in ("id", "data"):
                    message[field] = value
            if "data" in message:
                message["data"] = json.loads(message["data"])
                self.messages.append(message)

    def ids(self):
        return [int(m["id"]) for m in self.messages]


def read_until(chunks, reader, done, timeout=10):
    """Feed ``reader`` from the iterator ``chunks`` until ``done(reader)``; fails after
    ``timeout`` seconds or when the stream ends first."""
    deadline = time.monotonic() + timeout
    while not done(reader):
        assert time.monotonic() < deadline, (reader.messages, reader.comments)
        reader.feed(next(chunks))
    return reader
