"""Hostile values get a 4xx, never a 500 (docs/reference/http.rst): control characters in
path and query parameters, names, descriptions and request headers. PostgreSQL cannot
hold NUL in text at all, so every case here is also run against it."""

import unicodedata

import pytest

from tests.conftest import bearer, login
from tests.resources import actors, create_dataset  # noqa: F401  (fixture)

CONTROL = "string contains a control character"
CONTROL_TYPE = "value_error.str.control"
# NUL, other C0 controls, white-space controls, DEL and C1 controls (U+0085 NEL).
CONTROL_CHARACTERS = ["\x00", "\x01", "\x1b", "\x1c", "\t", "\n", "\r", "\x7f", "\x85", "\x9f"]


@pytest.fixture
def config_overrides(tmp_path):
    return {"STORAGE_PATH": str(tmp_path / "storage")}  # files of these tests stay apart


def control_error(*loc):
    return {"detail": [{"loc": list(loc), "msg": CONTROL, "type": CONTROL_TYPE}]}


# --- query parameters ------------------------------------------------------------------

LIST_FILTERS = [
    ("/api/v1/datasets/", "q"),
    ("/api/v1/datasets/", "tag"),
    ("/api/v1/datasets/", "owner"),
    ("/api/v1/collections/", "q"),
    ("/api/v1/collections/", "owner"),
    ("/api/v1/pipelines/", "q"),
    ("/api/v1/pipelines/", "owner"),
    ("/api/v1/users/", "q"),
]


@pytest.mark.parametrize("path, name", LIST_FILTERS)
@pytest.mark.parametrize("character", CONTROL_CHARACTERS)
def test_control_character_in_a_list_filter_is_422(client, actors, path, name, character):
    response = client.get(
        path, query_string={name: f"me{character}"}, headers=actors["admin"].headers
    )
    assert response.status_code == 422
    assert response.get_json() == control_error("query", name)


@pytest.mark.parametrize("character", ["\x00", "\x1f", "\x85"])
def test_control_character_in_the_upload_filename_is_422_and_stores_nothing(
    client, actors, character
):
    dataset = create_dataset(client, actors["editor"].headers, "upload target")
    response = client.put(
        f"/api/v1/datasets/{dataset['id']}/file",
        query_string={"filename": f"a{character}.csv"},
        data=b"a,b\n",
        content_type="text/csv",
        headers=actors["editor"].headers,
    )
    assert response.status_code == 422
    assert response.get_json() == control_error("query", "filename")
    again = client.get(f"/api/v1/datasets/{dataset['id']}", headers=actors["editor"].headers)
    assert again.get_json()["file"] is None


def test_filters_without_control_characters_still_work(client, actors):
    create_dataset(client, actors["editor"].headers, "Tab\u00a0separated", tags=["ünï"])
    response = client.get(
        "/api/v1/datasets/",
        query_string={"q": "tab\u00a0", "tag": "ünï"},
        headers=actors["admin"].headers,
    )
    assert response.status_code == 200
    assert [item["name"] for item in response.get_json()["items"]] == ["Tab\u00a0separated"]


# --- path parameters -------------------------------------------------------------------

STRING_PATHS = [
    ("get", "/api/v1/users/{}", "user_id"),
    ("patch", "/api/v1/users/{}", "user_id"),
    ("delete", "/api/v1/users/{}", "user_id"),
    ("delete", "/api/v1/auth/sessions/{}", "session_id"),
]
ENCODED_CONTROLS = ["%00", "%01", "%0A", "%1F", "%7F", "%C2%85", "abc%00def"]


@pytest.mark.parametrize("method, template, name", STRING_PATHS)
@pytest.mark.parametrize("encoded", ENCODED_CONTROLS)
def test_control_character_in_a_path_parameter_is_422(
    client, actors, method, template, name, encoded
):
    response = getattr(client, method)(
        template.format(encoded), json={}, headers=actors["admin"].headers
    )
    assert response.status_code == 422
    assert response.get_json() == control_error("path", name)


@pytest.mark.parametrize("method, template, name", STRING_PATHS)
def test_a_bad_path_parameter_without_a_token_is_still_401(client, method, template, name):
    response = getattr(client, method)(template.format("%00"), json={})
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Not authenticated"}


@pytest.mark.parametrize(
    "template", ["/api/v1/datasets/{}", "/api/v1/collections/{}", "/api/v1/pipelines/{}"]
)
def test_control_character_in_an_id_is_not_an_integer(client, actors, template):
    response = client.get(template.format("%00"), headers=actors["admin"].headers)
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["msg"] == "value is not a valid integer"


# --- names and free text in bodies -----------------------------------------------------

NAMED = [
    ("/api/v1/datasets/", {}, "name"),
    ("/api/v1/collections/", {}, "name"),
    ("/api/v1/pipelines/", {"source_dataset_id": 1, "output_dataset_name": "out"}, "name"),
    ("/api/v1/pipelines/", {"source_dataset_id": 1, "name": "pipe"}, "output_dataset_name"),
]
NAME_CONTROLS = [c for c in CONTROL_CHARACTERS if c != "\x00"]  # NUL: see test_errors


@pytest.mark.parametrize("path, other_fields, field", NAMED)
@pytest.mark.parametrize("character", NAME_CONTROLS)
def test_control_character_in_a_name_is_422(client, actors, path, other_fields, field, character):
    body = {**other_fields, field: f"Report{character}2024"}
    response = client.post(path, json=body, headers=actors["admin"].headers)
    assert response.status_code == 422
    assert response.get_json() == control_error("body", field)


@pytest.mark.parametrize("character", NAME_CONTROLS)
def test_a_name_of_one_control_character_is_422(client, actors, character):
    response = client.post(
        "/api/v1/datasets/", json={"name": character}, headers=actors["admin"].headers
    )
    assert response.status_code == 422
    assert response.get_json() == control_error("body", "name")


def test_control_character_in_a_renamed_dataset_is_422(client, actors):
    dataset = create_dataset(client, actors["admin"].headers, "plain")
    response = client.patch(
        f"/api/v1/datasets/{dataset['id']}",
        json={"name": "a\x1cb"},
        headers=actors["admin"].headers,
    )
    assert response.status_code == 422
    assert response.get_json() == control_error("body", "name")


@pytest.mark.parametrize("character", NAME_CONTROLS)
def test_control_character_in_a_tag_is_422(client, actors, character):
    response = client.post(
        "/api/v1/datasets/",
        json={"name": "tagged", "tags": ["ok", f"x{character}"]},
        headers=actors["admin"].headers,
    )
    assert response.status_code == 422
    assert response.get_json() == control_error("body", "tags", 1)


@pytest.mark.parametrize("method, path", [("post", "/api/v1/users/"), ("patch", None)])
@pytest.mark.parametrize("character", ["\x01", "\n", "\x85"])
def test_control_character_in_a_users_name_is_422(client, actors, method, path, character):
    path = path or f"/api/v1/users/{actors['viewer'].id}"
    body = {"name": f"Ann{character}"}
    if method == "post":
        body.update(email="ann@example.com", password="a long password")
    response = getattr(client, method)(path, json=body, headers=actors["admin"].headers)
    assert response.status_code == 422
    assert response.get_json() == control_error("body", "name")


@pytest.mark.parametrize("path", ["/api/v1/datasets/", "/api/v1/collections/"])
@pytest.mark.parametrize("character", ["\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x85"])
def test_description_refuses_control_characters_but_tab_and_line_breaks(
    client, actors, path, character
):
    response = client.post(
        path,
        json={"name": "described", "description": f"a{character}b"},
        headers=actors["admin"].headers,
    )
    assert response.status_code == 422
    assert response.get_json() == control_error("body", "description")


def test_description_keeps_tab_and_line_breaks(client, actors):
    text = "line one\r\n\tindented\nline three"
    dataset = create_dataset(client, actors["admin"].headers, "described", description=text)
    assert dataset["description"] == text


def test_blank_name_names_the_documented_pattern(client, actors):
    from datahub.web.validation import NAME_PATTERN

    response = client.post(
        "/api/v1/datasets/", json={"name": "   "}, headers=actors["admin"].headers
    )
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {
                "loc": ["body", "name"],
                "msg": f'string does not match regex "{NAME_PATTERN}"',
                "type": "value_error.str.regex",
            }
        ]
    }


# --- request headers -------------------------------------------------------------------

HEADER_VALUES = ["\x00", "a\x01b", "\x1b[2J", "x\ny", "\r", "\x7f", "\x85", "\xff", "\t"]


@pytest.mark.parametrize("value", HEADER_VALUES)
def test_user_agent_is_stored_without_control_characters(client, make_user, value):
    make_user(email="ua@example.com")
    environ = {"HTTP_USER_AGENT": f"Mozilla/5.0{value} (X11)"}
    response = client.post(
        "/api/v1/auth/login",
        environ_overrides=environ,
        json={"email": "ua@example.com", "password": "correct horse battery"},
    )
    assert response.status_code == 200
    sessions = client.get(
        "/api/v1/auth/sessions", headers=bearer(response.get_json()["access_token"])
    )
    assert sessions.status_code == 200
    [session] = sessions.get_json()["items"]
    kept = "".join(c for c in value if unicodedata.category(c) != "Cc")
    expected = f"Mozilla/5.0{kept} (X11)"
    assert session["user_agent"] == expected


@pytest.mark.parametrize("config_overrides", [{"PROXY_FIX_X_FOR": 1}])
@pytest.mark.parametrize(
    "forwarded, stored",
    [
        ("203.0.113.9\x00", "203.0.113.9"),
        ("\x1b[31m198.51.100.7", "[31m198.51.100.7"),
        ("9" * 100, "9" * 64),
        ("\x00", None),
    ],
)
def test_forwarded_address_is_stored_cleaned_and_cut(client, make_user, forwarded, stored):
    make_user(email="fwd@example.com")
    response = client.post(
        "/api/v1/auth/login",
        environ_overrides={"HTTP_X_FORWARDED_FOR": forwarded},
        json={"email": "fwd@example.com", "password": "correct horse battery"},
    )
    assert response.status_code == 200
    sessions = client.get(
        "/api/v1/auth/sessions", headers=bearer(response.get_json()["access_token"])
    )
    assert sessions.get_json()["items"][0]["client_address"] == stored


@pytest.mark.parametrize("value", HEADER_VALUES)
def test_control_characters_in_the_request_id_are_not_echoed(client, value):
    response = client.get("/healthz", environ_overrides={"HTTP_X_REQUEST_ID": f"id{value}"})
    assert response.status_code == 200
    assert len(response.headers["X-Request-ID"]) == 32


@pytest.mark.parametrize("value", HEADER_VALUES)
def test_control_characters_in_origin_are_a_foreign_origin(client, make_user, value):
    make_user(email="origin@example.com")
    assert login(client, "origin@example.com").status_code == 200
    for path in ("/api/v1/auth/refresh", "/api/v1/auth/logout"):
        response = client.post(path, environ_overrides={"HTTP_ORIGIN": f"http://local{value}host"})
        assert response.status_code == 403, path
        assert response.get_json() == {"detail": "Forbidden"}


@pytest.mark.parametrize("config_overrides", [{"JWT_COOKIE_CSRF_PROTECT": True}])
@pytest.mark.parametrize("value", HEADER_VALUES)
def test_control_characters_in_the_csrf_header_are_403(client, make_user, value):
    make_user(email="csrf@example.com")
    assert login(client, "csrf@example.com").status_code == 200
    for path in ("/api/v1/auth/refresh", "/api/v1/auth/logout"):
        response = client.post(path, environ_overrides={"HTTP_X_CSRF_TOKEN": f"t{value}"})
        assert response.status_code in (401, 403), path
        assert response.get_json()["detail"] in ("Forbidden", "Not authenticated"), path


@pytest.mark.parametrize("value", HEADER_VALUES)
def test_control_characters_in_authorization_are_401(client, value):
    response = client.get(
        "/api/v1/auth/me", environ_overrides={"HTTP_AUTHORIZATION": f"Bearer ab{value}c"}
    )
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Invalid token"}


@pytest.mark.parametrize(
    "header",
    [
        "HTTP_RANGE",
        "HTTP_IF_NONE_MATCH",
        "HTTP_IF_MODIFIED_SINCE",
        "HTTP_IF_RANGE",
        "HTTP_ACCEPT",
        "HTTP_ACCEPT_ENCODING",
        "HTTP_COOKIE",
    ],
)
@pytest.mark.parametrize("value", HEADER_VALUES)
def test_control_characters_in_download_headers_are_never_a_500(client, actors, header, value):
    dataset = create_dataset(client, actors["editor"].headers, "download me")
    url = f"/api/v1/datasets/{dataset['id']}/file"
    put = client.put(
        url, data=b"0123456789", content_type="text/csv", headers=actors["editor"].headers
    )
    assert put.status_code == 200
    response = client.get(
        url, headers=actors["editor"].headers, environ_overrides={header: f"bytes=0-{value}"}
    )
    if response.status_code == 416:
        assert response.get_json() == {"detail": "Requested Range Not Satisfiable"}
    else:
        assert response.status_code in (200, 206, 304)
        assert response.get_data() in (b"0123456789", b"")
