"""LOG_FORMAT=json (datahub.web.logs): the app's log lines are JSON objects carrying the
request id. gunicorn's lines: tests/e2e/test_metrics_gunicorn.py."""

import json
import logging
import runpy
from pathlib import Path

import pytest

from datahub import create_app
from datahub.platform.errors import ConfigurationError
from tests.conftest import login
from tests.workers import free_port

JSON_LOGS = {"LOG_FORMAT": "json"}
ROOT = Path(__file__).resolve().parents[1]


def json_lines(text):
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines
    return [json.loads(line) for line in lines]  # fails on any line that is not JSON


@pytest.mark.parametrize("config_overrides", [JSON_LOGS])
def test_audit_events_are_json_lines_with_the_request_id(client, make_user, capsys):
    make_user()
    capsys.readouterr()
    assert (
        login(
            client,
            password="wrong",
        ).status_code
        == 401
    )
    response = client.post(
        "/api/v1/auth/login",
        headers={"X-Request-ID": "trace-json-1"},
        json={"email": "user@example.com", "password": "wrong again"},
    )
    assert response.status_code == 401
    lines = json_lines(capsys.readouterr().err)
    (line,) = [line for line in lines if line.get("request_id") == "trace-json-1"]
    assert {key: line[key] for key in ("level", "logger", "message", "event", "reason")} == {
        "level": "INFO",
        "logger": "datahub.audit",
        "message": "login_failed",
        "event": "login_failed",
        "reason": "wrong_password",
    }
    assert line["time"].endswith("Z") and line["email"] == "user@example.com"
    assert len([line for line in lines if line["logger"] == "datahub.audit"]) == 2


@pytest.mark.parametrize(
    "config_overrides",
    [
        {
            **JSON_LOGS,
            "OIDC_ISSUER": f"http://127.0.0.1:{free_port()}",
            "OIDC_CLIENT_ID": "c",
            "OIDC_CLIENT_SECRET": "s",
            "OIDC_TIMEOUT": 1,
        }
    ],
)
def test_the_app_logger_writes_json_lines_with_the_request_id(client, capsys):
    capsys.readouterr()
    response = client.get("/api/v1/auth/oidc/login", headers={"X-Request-ID": "trace-json-2"})
    assert response.status_code == 503  # nothing listens at the issuer: an error is logged
    (line,) = json_lines(capsys.readouterr().err)
    assert line["logger"] == "datahub" and line["level"] == "ERROR"
    assert line["message"].startswith("OIDC provider unavailable")
    assert line["request_id"] == "trace-json-2"


def test_text_is_the_default_and_an_unknown_format_stops_start_up(app, base_config):
    assert app.config["LOG_FORMAT"] == "text"
    assert logging.getLogger("datahub").propagate
    with pytest.raises(ConfigurationError, match="LOG_FORMAT must be text or json"):
        create_app({**base_config, "LOG_FORMAT": "xml"})


def gunicorn_settings(monkeypatch, log_format):
    """gunicorn.conf.py's settings with ``DATAHUB_LOG_FORMAT`` set to ``log_format``."""
    monkeypatch.setenv("DATAHUB_LOG_FORMAT", log_format)
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"), run_name="gunicorn_conf_test")


@pytest.mark.parametrize(
    ("log_format", "expected"),
    [
        ("json", "json"),
        ('"json"', "json"),  # JSON text, as every DATAHUB_* setting may be given
        (' "JSON" ', "json"),
        ("text", "text"),
        ('"text"', "text"),
    ],
)
def test_gunicorn_reads_datahub_log_format_as_the_app_does(
    monkeypatch, base_config, log_format, expected
):
    settings = gunicorn_settings(monkeypatch, log_format)
    json_logs = "logconfig_dict" in settings
    assert ("json" if json_logs else "text") == expected
    assert create_app(base_config).config["LOG_FORMAT"] == expected
    if json_logs:
        formatter = settings["logconfig_dict"]["formatters"]["json"]["()"]
        assert formatter == "datahub.web.logs.JsonFormatter"


def test_gunicorn_refuses_an_unknown_log_format(monkeypatch):
    with pytest.raises(ConfigurationError, match="LOG_FORMAT must be text or json"):
        gunicorn_settings(monkeypatch, '"xml"')
