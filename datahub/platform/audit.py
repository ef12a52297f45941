"""The audit log: one JSON object per line on the ``datahub.audit`` logger.

Events carry who (user id, email), from where (client address, request id) and what
happened. Never a password, a token or a token's jti: a log reader must not be able to
replay a session from it.

Where an event comes from is the web layer's to say, as it knows the request: it names a
function with :func:`read_origin_from` (datahub.web.request_ids.audit_origin, which gives
the client's address and the request id during a request). Until it does, and whenever
that function answers None, an event comes ``via: cli``.
"""

import json
import logging
import sys

from datahub.platform.database import isoformat, utcnow

log = logging.getLogger("datahub.audit")


def _no_origin():
    return None


_origin = _no_origin


def read_origin_from(function):
    """``function()``: the fields that say where an event comes from, or None outside a
    request."""
    global _origin
    _origin = function


def audit(event, **fields):
    record = {"ts": isoformat(utcnow()), "event": event}
    record.update(_origin() or {"via": "cli"})
    record.update({key: value for key, value in fields.items() if value is not None})
    # As JSON lines (LOG_FORMAT=json, datahub.web.logs) the fields are the line's own keys.
    log.info(
        json.dumps(record, sort_keys=False, default=str),
        extra={"datahub_message": event, "datahub_fields": record},
    )


def configure_audit_log(json_lines=False):
    """Audit events are INFO. When the process has configured no logging at all (gunicorn
    configures only its own loggers), write them to stderr, next to the access log. As
    JSON lines they go to the ``datahub`` logger's handler (datahub.web.logs) instead."""
    if log.level == logging.NOTSET:
        log.setLevel(logging.INFO)
    if json_lines:
        for handler in [h for h in log.handlers if getattr(h, "datahub_audit", False)]:
            log.removeHandler(handler)
        log.propagate = True
    elif not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler.datahub_audit = True
        log.addHandler(handler)
        log.propagate = False  # a root handler configured later must not print it twice
