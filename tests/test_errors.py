"""The shared error behaviour (seed part 7, DESIGN.md "Errors") and response headers."""

import io
import logging
import os

import pytest
import sqlalchemy as sa
from flask import request
from gunicorn.http import errors as gunicorn_errors
from werkzeug import exceptions as wz

from datahub.datasets.errors import DatasetNotFound
from datahub.platform import errors
from datahub.quotas import (
    DatasetQuotaExceeded,
    QueuedRunsQuotaExceeded,
    StorageQuotaExceeded,
)
from datahub.web.errors import Forbidden, NotFound, TooManyRequests


def assert_json_error(response, status, detail):
    assert response.status_code == status
    assert response.mimetype == "application/json"
    assert response.get_json() == {"detail": detail}


def test_unknown_path_is_json_404(client):
    assert_json_error(client.get("/api/v1/nothing-here"), 404, "Not Found")


def test_wrong_method_is_json_405_with_allow(client):
    response = client.delete("/api/v1/auth/me")
    assert_json_error(response, 405, "Method Not Allowed")
    assert set(response.headers["Allow"].split(", ")) >= {"GET", "HEAD", "OPTIONS"}


@pytest.mark.parametrize("config_overrides", [{"MAX_JSON_BODY_BYTES": 1024}])
def test_json_body_over_max_json_body_bytes_is_413(client):
    response = client.post("/api/v1/auth/login", json={"email": "a@b.c", "password": "x" * 2000})
    assert_json_error(response, 413, "Request body too large")


@pytest.mark.parametrize("config_overrides", [{"MAX_JSON_BODY_BYTES": 1024}])
def test_exactly_max_json_body_bytes_is_accepted(client):
    body = '{"email": "a@b.c", "password": "%s"}'
    body = body % ("x" * (1024 - len(body) + 2))
    assert len(body) == 1024
    response = client.post("/api/v1/auth/login", data=body, content_type="application/json")
    assert_json_error(response, 401, "Invalid email or password")


def test_unexpected_exception_is_500_logged_never_leaked(app, client, caplog):
    def boom():
        raise RuntimeError("secret internals")

    app.add_url_rule("/boom", view_func=boom)
    with caplog.at_level(logging.ERROR, logger="datahub.errors"):
        response = client.get("/boom", headers={"X-Request-ID": "req-123"})
    assert_json_error(response, 500, "Internal server error")
    assert "secret internals" not in response.get_data(as_text=True)
    (record,) = [r for r in caplog.records if r.name == "datahub.errors"]
    assert "req-123" in record.getMessage()
    assert record.exc_info and "secret internals" in str(record.exc_info[1])


def test_database_failure_is_503_json(app, client):
    def down():
        raise sa.exc.OperationalError("SELECT 1", {}, Exception("connection refused"))

    app.add_url_rule("/down", view_func=down)
    response = client.get("/down")
    assert_json_error(response, 503, "Service unavailable")
    assert response.headers["Retry-After"] == "1"


@pytest.mark.parametrize(
    "exc, status, detail",
    [
        (Forbidden(), 403, "Forbidden"),
        (NotFound(), 404, "Not Found"),
        (errors.NameTaken(), 409, "Name already exists"),
        (DatasetNotFound(), 404, "Dataset not found"),
        (errors.FileTooLarge(), 400, "File too large"),
        (errors.InsufficientStorage(), 507, "Insufficient storage"),
        (errors.IncompleteBody(), 400, "Request body ended before its Content-Length"),
        (errors.Unprocessable("Dataset file is not tabular"), 422, "Dataset file is not tabular"),
    ],
)
def test_app_errors_carry_their_status_and_detail(app, client, exc, status, detail):
    def raise_it():
        raise exc

    app.add_url_rule("/raise", view_func=raise_it)
    assert_json_error(client.get("/raise"), status, detail)


@pytest.mark.parametrize(
    "exc, status, detail, retry_after",
    [
        (StorageQuotaExceeded(), 507, "Storage quota exceeded", None),
        (DatasetQuotaExceeded(), 403, "Dataset quota exceeded", None),
        (QueuedRunsQuotaExceeded(), 429, "Too many queued runs", "10"),
        (TooManyRequests(), 429, "Too many requests", "1"),
        (errors.StorageUnavailable(), 503, "Storage unavailable", "1"),
        (wz.TooManyRequests(), 429, "Too Many Requests", "1"),
        (wz.TooManyRequests(retry_after=7), 429, "Too Many Requests", "7"),
    ],
)
def test_quota_and_throttling_errors_are_json_with_retry_after(
    app, client, exc, status, detail, retry_after
):
    def raise_it():
        raise exc

    app.add_url_rule("/raise", view_func=raise_it)
    response = client.get("/raise")
    assert_json_error(response, status, detail)
    assert response.headers.get("Retry-After") == retry_after


def test_a_domain_error_of_values_is_the_422_list_under_body(app, client):
    def raise_it():
        raise errors.InvalidValues({"steps": {0: {"dataset_id": ["dataset not found"]}}})

    app.add_url_rule("/raise", view_func=raise_it)
    assert_json_error(
        client.get("/raise"),
        422,
        [
            {
                "loc": ["body", "steps", 0, "dataset_id"],
                "msg": "dataset not found",
                "type": "value_error",
            }
        ],
    )


def test_every_domain_error_has_a_status():
    from datahub.web.error_handlers import from_domain_error

    kinds, stack = [], [errors.DomainError]
    while stack:
        kinds.append(stack.pop())
        stack.extend(kinds[-1].__subclasses__())
    assert len(kinds) > 20  # the features' errors too
    unanswered = []
    for kind in kinds:
        error = kind.__new__(kind)  # whatever its arguments
        error.message, error.messages = "x", {}
        if from_domain_error(error) is None:
            unanswered.append(kind.__name__)
    assert unanswered == ["DomainError"]


class BrokenInput(io.BytesIO):
    """A wsgi.input whose reads fail as gunicorn's body readers do; ``failed`` is gunicorn's
    flag: set, the connection closes after the answer."""

    failed = False

    def __init__(self, error):
        super().__init__(b"x" * 10)
        self.error = error

    def read(self, *args):
        raise self.error

    readinto = read1 = readline = read


@pytest.mark.parametrize(
    "error, detail",
    [
        (gunicorn_errors.NoMoreData(), "Request body ended before its Content-Length"),
        (gunicorn_errors.InvalidChunkSize("zz"), "Malformed chunked body"),
    ],
)
def test_the_servers_body_errors_are_400s_that_close_the_connection(app, client, error, detail):
    app.add_url_rule("/read", view_func=lambda: request.get_data() and "", methods=["POST"])
    body = BrokenInput(error)
    response = client.post("/read", input_stream=body, content_type="application/octet-stream")
    assert_json_error(response, 400, detail)
    assert body.failed is True


def test_request_id_is_honoured_or_generated(client):
    assert (
        client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["X-Request-ID"]
        == "abc-123"
    )
    generated = client.get("/healthz").headers["X-Request-ID"]
    assert len(generated) == 32
    # A header that could forge log lines is replaced, not echoed.
    assert (
        client.get("/healthz", headers={"X-Request-ID": "a b\tc"}).headers["X-Request-ID"]
        != "a b\tc"
    )


def test_generated_request_ids_differ_between_requests_and_forked_workers(client):
    from datahub.web.request_ids import new_request_id

    ids = {client.get("/healthz").headers["X-Request-ID"] for _ in range(50)}
    assert len(ids) == 50
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # a gunicorn worker is a fork of the master
        os.write(write_end, new_request_id().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    in_child = os.read(read_end, 64).decode()
    assert len(in_child) == 32 and in_child != new_request_id()


@pytest.mark.parametrize("path", ["/healthz", "/api/v1/nothing", "/api/v1/auth/me"])
def test_every_response_has_nosniff_and_one_request_id(client, path):
    response = client.get(path, headers={"X-Request-ID": "one-id"})
    assert response.headers.getlist("X-Content-Type-Options") == ["nosniff"]
    assert response.headers.getlist("X-Request-ID") == ["one-id"]


def test_health_and_readiness(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "database": "ok", "rate_limits": "ok"}


def test_readiness_reports_an_unreachable_database(base_config):
    from datahub import create_app

    app = create_app(
        {**base_config, "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://nobody@127.0.0.1:1/none"}
    )
    response = app.test_client().get("/readyz")
    assert_json_error(response, 503, "Database unavailable")


def test_openapi_document_describes_auth(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert {
        "/api/v1/auth/login",
        "/api/v1/auth/refresh",
        "/api/v1/auth/logout",
        "/api/v1/auth/me",
    } <= set(spec["paths"])
    schemes = spec["components"]["securitySchemes"]
    assert schemes["bearerAuth"]["scheme"] == "bearer"
    assert schemes["refreshCookie"] == {
        **schemes["refreshCookie"],
        "in": "cookie",
        "name": "__Secure-refresh_token",
    }
    login = spec["paths"]["/api/v1/auth/login"]["post"]
    assert {"200", "401", "422"} <= set(login["responses"])
    error = spec["components"]["schemas"]["Error"]
    assert list(error["properties"]) == ["detail"]
    assert client.get("/api/v1/docs").status_code == 200
