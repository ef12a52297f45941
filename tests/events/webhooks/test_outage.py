"""A receiver that is down for a while (its address refusing connections, through a TCP
proxy): each batch stops at its first failure, the webhook is tried once per first retry
delay however many messages wait (so a minute's outage does not turn it off), and once the
receiver answers again every waiting message is sent at once."""

import time

import pytest

from datahub.events.webhooks import dispatch
from tests import processes
from tests.e2e.tcp_proxy import TcpProxy
from tests.events.webhooks.helpers import (  # noqa: F401  (receiver: a fixture)
    LOOPBACK,
    WEBHOOKS,
    create_webhook,
    deliveries,
    receiver,
)
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)

REST = 1  # seconds: the first retry delay


@pytest.fixture
def config_overrides():
    return {**LOOPBACK, "WEBHOOK_RETRY_SECONDS": [REST, 600], "WEBHOOK_MAX_FAILURES": 3}


@pytest.fixture
def proxied(receiver):
    host, port = receiver.url.removeprefix("http://").split("/")[0].split(":")
    proxy = TcpProxy(host, int(port))
    proxy.up()
    yield proxy, receiver.url.replace(f":{port}/", f":{proxy.port}/")
    proxy.down()
    processes.stop(receiver.process)


def attempts(client, headers, webhook_id):
    return [
        d["attempts"]
        for d in sorted(deliveries(client, headers, webhook_id), key=lambda d: d["id"])
    ]


def test_a_receiver_down_is_tried_once_per_delay_and_gets_everything_once_back(
    app, client, actors, receiver, proxied
):
    editor = actors["editor"].headers
    proxy, url = proxied
    webhook = create_webhook(client, editor, receiver, url=url)
    proxy.down()
    for name in ("one", "two", "three"):
        create_dataset(client, editor, name)
    assert dispatch.run_once(app) == 1  # the batch ends at its first failure
    assert attempts(client, editor, webhook["id"]) == [1, 0, 0]
    create_dataset(client, editor, "four")
    assert dispatch.run_once(app) == 0  # resting: its last attempt failed under REST ago
    time.sleep(REST + 0.1)
    assert dispatch.run_once(app) == 1
    assert attempts(client, editor, webhook["id"]) == [2, 0, 0, 0]
    state = client.get(f"{WEBHOOKS}{webhook['id']}", headers=editor).get_json()
    assert (state["active"], state["failures"]) == (True, 2)  # two tries, not eight

    proxy.up()
    time.sleep(REST + 0.1)
    # Two, three and four in one batch; one, due only in 600 s, is made due by the first
    # success and sent by the next pass.
    assert dispatch.run_once(app) == 3
    assert dispatch.run_once(app) == 1
    assert {d["status"] for d in deliveries(client, editor, webhook["id"])} == {"succeeded"}
    assert sorted(m["id"] for m in receiver.received()) == sorted(
        f"msg_{d['id']}" for d in deliveries(client, editor, webhook["id"])
    )
    state = client.get(f"{WEBHOOKS}{webhook['id']}", headers=editor).get_json()
    assert (state["active"], state["failures"]) == (True, 0)
