"""The service's log lines: ``LOG_FORMAT=json`` writes each as one JSON object with
``time``, ``level``, ``logger``, ``message`` and the ``request_id`` where there is one;
gunicorn's access lines also carry method, path, status and duration (gunicorn.conf.py
gives gunicorn's loggers this formatter). ``text``, the default, leaves logging as it is.

Kept light (no prometheus_client, no app): gunicorn imports it before its master starts.
"""

import json
import logging
import sys
from datetime import datetime, timezone

from flask.logging import default_handler

from datahub.web.request_ids import current_request_id


class JsonFormatter(logging.Formatter):
    """One JSON object per record. A record's ``datahub_fields`` (a dict, e.g. an audit
    event's) become keys of the line; ``datahub_message`` replaces its message."""

    def format(self, record):
        line = {
            "time": datetime.fromtimestamp(record.created, timezone.utc)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": getattr(record, "datahub_message", None) or record.getMessage(),
        }
        request_id = current_request_id()
        if record.name == "gunicorn.access" and isinstance(record.args, dict):
            line.update(_access_fields(record.args), pid=record.process)
            request_id = _atom(record.args, "{x-request-id}o")
        if request_id:
            line["request_id"] = request_id
        for key, value in (getattr(record, "datahub_fields", None) or {}).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str)


def _atom(atoms, key):
    value = atoms.get(key)
    return None if value in (None, "-") else value


def _access_fields(atoms):
    """gunicorn's access-log atoms (the record's args) as fields."""
    status = _atom(atoms, "s")
    return {
        "method": _atom(atoms, "m"),
        "path": _atom(atoms, "U"),
        "query": _atom(atoms, "q") or None,
        "status": int(status) if str(status).isdigit() else status,
        "duration": atoms.get("D", 0) / 1e6,  # seconds, from gunicorn's microseconds
        "bytes": atoms.get("B"),
        "client_address": _atom(atoms, "h"),
    }


class StderrHandler(logging.StreamHandler):
    """Writes to ``sys.stderr`` as it is when each line is written, not when created."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):
        pass


def json_handler():
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter())
    handler.datahub_json = True
    return handler


def configure_logging(app):
    """Apply ``LOG_FORMAT`` to the ``datahub`` loggers (and to the root logger, when nothing
    else configured it). Undone by a text-mode app built later in the same process."""
    from datahub.platform.audit import configure_audit_log

    json_lines = app.config["LOG_FORMAT"] == "json"
    service, root = logging.getLogger("datahub"), logging.getLogger()
    for logger in (service, root):
        for handler in [h for h in logger.handlers if getattr(h, "datahub_json", False)]:
            logger.removeHandler(handler)
    service.propagate = True
    if json_lines:
        service.removeHandler(default_handler)  # Flask's text handler on app.logger
        if root.handlers:  # gunicorn's (already JSON) or the operator's: ours beside them
            service.addHandler(json_handler())
            service.propagate = False
        else:  # as the pipeline worker's command would: its INFO lines are wanted
            root.addHandler(json_handler())
            root.setLevel(logging.INFO)
    configure_audit_log(json_lines)


def environment_log_format():
    """``DATAHUB_LOG_FORMAT`` as ``create_app`` reads it: Flask's ``from_prefixed_env``
    (JSON text such as ``"json"`` is decoded), then the app's own check. For
    gunicorn.conf.py, which configures gunicorn's loggers before any app exists."""
    from flask import Config

    from datahub.app.config_checks import log_format

    settings = Config(".")
    settings.from_prefixed_env("DATAHUB")
    return log_format(settings.get("LOG_FORMAT"))
