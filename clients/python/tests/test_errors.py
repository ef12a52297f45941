"""Every error answer becomes a typed DatahubError carrying the status and the detail."""

import pytest

from datahub_client import (
    AuthenticationError,
    BadRequestError,
    Client,
    ConflictError,
    DatahubError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
    UnreachableError,
    ValidationError,
)
from datahub_client.errors import error_for


@pytest.mark.parametrize(
    "status, cls",
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (422, ValidationError),
        (429, RateLimitedError),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
        (504, ServerError),
        (418, DatahubError),
        (413, DatahubError),
    ],
)
def test_each_status_has_its_type(status, cls):
    error = error_for(status, "Nope")
    assert type(error) is cls and isinstance(error, DatahubError)
    assert (error.status, error.detail, error.message, str(error)) == (
        status,
        "Nope",
        "Nope",
        f"{status}: Nope",
    )


def test_a_422_lists_its_fields_as_field_colon_message():
    detail = [
        {"loc": ["json", "name"], "msg": "field required", "type": "missing"},
        {"loc": ["json", "file", "size"], "msg": "too big", "type": "value"},
        {"loc": ["json"], "msg": "not an object", "type": "type"},
    ]
    error = error_for(422, detail)
    assert error.detail == detail  # the list as the service sent it
    assert error.message == "name: field required; file.size: too big; body: not an object"


def test_an_unreachable_service_is_status_0(unused_port):
    client = Client(f"http://127.0.0.1:{unused_port}", retries=0)
    with pytest.raises(DatahubError) as error:
        client.request("GET", "/readyz", authenticated=False)
    assert type(error.value) is UnreachableError and error.value.status == 0
    assert error.value.message == f"cannot reach http://127.0.0.1:{unused_port}"
    assert error.value.detail.startswith(f"cannot reach http://127.0.0.1:{unused_port}: ")
    assert "Connection refused" in str(error.value.reason)


def test_refresh_without_a_cookie_asks_for_a_login_without_a_request(unused_port):
    client = Client(f"http://127.0.0.1:{unused_port}", retries=0)
    with pytest.raises(AuthenticationError) as error:
        client.refresh()
    assert (error.value.status, error.value.detail) == (401, "Not authenticated")
