"""Sending one webhook message (docs/guides/events.rst, "Webhooks"): signed as Standard
Webhooks say, to an address checked against the SSRF rules just before, within
``WEBHOOK_TIMEOUT_SECONDS``. No database here: datahub.events.webhooks.dispatch claims the
messages and records how each went."""

import http.client
import logging
import socket
import ssl
import threading
import time
from dataclasses import dataclass

from standardwebhooks.webhooks import Webhook as Signer

from datahub.events.webhooks.urls import UrlRefused, resolve

USER_AGENT = "datahub-webhooks/1"

log = logging.getLogger("datahub.webhooks")


@dataclass(frozen=True)
class Message:
    """A claimed delivery, signed and ready to send."""

    delivery_id: int
    webhook_id: int
    url: str
    payload: str
    headers: dict


@dataclass(frozen=True)
class Outcome:
    """How one attempt went: the receiver's status, or why there was none."""

    delivery_id: int
    webhook_id: int
    status: int | None
    error: str | None
    seconds: float
    broken: bool = False  # the dispatcher failed, not the receiver: the webhook turns off


def signed_headers(webhook, delivery, now):
    message_id = f"msg_{delivery.id}"
    signature = Signer(webhook.secret).sign(message_id, now, delivery.payload)
    return {
        "Content-Type": "application/cloudevents+json",
        "User-Agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
    }


def send(config, message):
    """Send ``message`` once (no database here); its :class:`Outcome`."""
    started, status, error = time.monotonic(), None, None
    try:
        target = resolve(message.url, config["WEBHOOK_ALLOW_HTTP"], config["WEBHOOK_ALLOW_PRIVATE"])
        status = post(
            target, message.payload, message.headers, float(config["WEBHOOK_TIMEOUT_SECONDS"])
        )
        if not 200 <= status < 300:
            error = f"the receiver answered {status}"
    except UrlRefused as refused:
        error = f"URL {refused}"
    except (OSError, http.client.HTTPException) as exc:
        error = (str(exc) or type(exc).__name__)[:200]
    except Exception as exc:  # noqa: BLE001  (this message's, not the receiver's: see Outcome)
        log.warning(
            "webhook %s: sending msg_%s failed: %r", message.webhook_id, message.delivery_id, exc
        )
        error = f"sending failed ({type(exc).__name__})"
        return Outcome(message.delivery_id, message.webhook_id, None, error, 0.0, broken=True)
    seconds = time.monotonic() - started
    return Outcome(message.delivery_id, message.webhook_id, status, error, seconds)


def post(target, body, headers, timeout):
    """POST ``body`` to the checked address of ``target``; the response's status. The
    whole exchange ends within ``timeout`` seconds (TimeoutError): a watchdog closes the
    socket of a receiver that answers too slowly. Redirects are answers like any other."""
    deadline = time.monotonic() + timeout
    sock = socket.create_connection((target.address, target.port), timeout=timeout)
    fired = threading.Event()
    watchdog = threading.Timer(timeout, lambda: (fired.set(), _close(sock)))
    watchdog.start()
    try:
        if target.scheme == "https":
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=target.host)
        connection = http.client.HTTPConnection(target.host, target.port, timeout=timeout)
        connection.sock = sock
        connection.request("POST", target.path, body=body.encode(), headers=headers)
        status = connection.getresponse().status
        connection.close()
        return status
    except (OSError, http.client.HTTPException):
        if fired.is_set() or time.monotonic() >= deadline:
            raise TimeoutError("timed out") from None
        raise
    finally:
        watchdog.cancel()
        _close(sock)


def _close(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
