import bcrypt
import jwt
import pytest

from tests.conftest import PASSWORD, TEST_SECRET, login

COOKIE = "__Secure-refresh_token"


def test_login_returns_the_token_response_and_sets_the_refresh_cookie(client, make_user):
    user = make_user()
    response = login(client)
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"access_token", "token_type"}
    assert body["token_type"] == "bearer"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Content-Type"] == "application/json"

    claims = jwt.decode(
        body["access_token"],
        TEST_SECRET,
        algorithms=["HS256"],
        audience="datahub-api",
        issuer="datahub",
    )
    assert claims["sub"] == user.id
    assert claims["type"] == "access"
    assert claims["exp"] - claims["iat"] == 1800
    assert {"jti", "nbf"} <= set(claims)

    (set_cookie,) = response.headers.getlist("Set-Cookie")
    name, _, rest = set_cookie.partition("=")
    assert name == COOKIE
    attributes = [a.strip() for a in rest.split(";")[1:]]
    assert "HttpOnly" in attributes
    assert "Secure" in attributes
    assert "Path=/api/v1/auth" in attributes
    assert "SameSite=Strict" in attributes
    assert "Max-Age=604800" in attributes
    assert not any(a.lower().startswith("domain") for a in attributes)
    assert body["access_token"] not in set_cookie
    refresh = jwt.decode(
        rest.split(";")[0], TEST_SECRET, algorithms=["HS256"], audience="datahub-api"
    )
    assert refresh["type"] == "refresh"
    assert refresh["exp"] - refresh["iat"] == 604800


def test_refresh_token_never_appears_in_the_body(client, make_user):
    make_user()
    response = login(client)
    cookie_value = response.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    assert cookie_value not in response.get_data(as_text=True)


def test_email_is_case_insensitive(client, make_user):
    make_user(email="Mixed.Case@Example.com")
    assert login(client, "mixed.case@example.COM").status_code == 200


@pytest.mark.parametrize(
    "email, password",
    [
        ("user@example.com", "wrong password"),
        ("nobody@example.com", PASSWORD),
        ("user@example.com", ""),
        ("user@example.com", "x" * 73),
        ("user@example.com", "é" * 200),
        ("not an email", PASSWORD),
    ],
    ids=["wrong-password", "unknown-email", "empty-password", "73-bytes", "400-bytes", "bad-email"],
)
def test_bad_credentials_are_401_with_one_message(client, make_user, email, password):
    make_user()
    response = login(client, email, password)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Invalid email or password"}
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert "Set-Cookie" not in response.headers


def test_inactive_user_cannot_log_in(app, client, make_user):
    from datahub.identity.users import services

    make_user()
    with app.app_context():
        services.create_user(email="admin@example.com", password=PASSWORD, roles=["admin"])
        services.set_active(services.get_by_email("user@example.com"), False)
    response = login(client)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Invalid email or password"}


def test_unknown_email_costs_one_bcrypt_check_like_a_wrong_password(client, make_user, monkeypatch):
    make_user()
    calls = []
    real = bcrypt.checkpw
    monkeypatch.setattr(bcrypt, "checkpw", lambda pw, h: calls.append(h) or real(pw, h))
    login(client, "nobody@example.com", PASSWORD)
    login(client, "user@example.com", "wrong password")
    login(client, "user@example.com", "x" * 100)
    assert len(calls) == 3
    costs = {h.split(b"$")[2] for h in calls}
    assert costs == {b"04"}  # the dummy hash has the configured cost too


@pytest.mark.parametrize(
    "body, errors",
    [
        (
            {},
            [
                (["body", "email"], "field required", "value_error.missing"),
                (["body", "password"], "field required", "value_error.missing"),
            ],
        ),
        ({"email": "a@b.c"}, [(["body", "password"], "field required", "value_error.missing")]),
        (
            {"email": 5, "password": "x"},
            [(["body", "email"], "str type expected", "type_error.str")],
        ),
        (
            {"email": "a@b.c", "password": None},
            [(["body", "password"], "none is not an allowed value", "type_error.none.not_allowed")],
        ),
        (
            {"email": "a@b.c", "password": "x", "admin": True},
            [(["body", "admin"], "extra fields not permitted", "value_error.extra")],
        ),
        ([], [(["body"], "value is not a valid dict", "type_error.dict")]),
    ],
    ids=["empty", "no-password", "email-int", "password-null", "extra-field", "list"],
)
def test_invalid_login_bodies_are_422_in_the_pydantic_shape(client, body, errors):
    response = client.post("/api/v1/auth/login", json=body)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [{"loc": loc, "msg": msg, "type": typ} for loc, msg, typ in errors]
    }


@pytest.mark.parametrize(
    "raw, loc, msg",
    [
        (
            '{"email": "a\\u0000b", "password": "x"}',
            ["body", "email"],
            "string contains a NUL character",
        ),
        (
            '{"email": "a", "password": "\\ud800"}',
            ["body", "password"],
            "string contains a lone surrogate",
        ),
        (
            '{"email": "a", "password": "x", "n": [{"\\u0000": 1}]}',
            ["body", "n", 0, "\x00"],
            "string contains a NUL character",
        ),
    ],
    ids=["nul", "surrogate", "nested-key"],
)
def test_strings_no_database_can_store_are_422(client, raw, loc, msg):
    response = client.post("/api/v1/auth/login", data=raw, content_type="application/json")
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["loc"] == loc
    assert response.get_json()["detail"][0]["msg"] == msg


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"data": "", "content_type": "application/json"}],
    ids=["no-content-type", "json-content-type"],
)
def test_no_body_at_all_is_422_body_required(client, kwargs):
    response = client.post("/api/v1/auth/login", **kwargs)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [{"loc": ["body"], "msg": "field required", "type": "value_error.missing"}]
    }


@pytest.mark.parametrize(
    "data, content_type, detail",
    [
        ('{"email": ', "application/json", "Request body is not valid JSON"),
        (b"\xff\xfe", "application/json", "Request body is not valid JSON"),
        ("[" * 100000, "application/json", "Request body is not valid JSON"),
        (
            "email=a&password=b",
            "application/x-www-form-urlencoded",
            "Request body must be JSON (Content-Type: application/json)",
        ),
        (
            '{"email": "a", "password": "b"}',
            "text/plain",
            "Request body must be JSON (Content-Type: application/json)",
        ),
    ],
    ids=["truncated", "not-utf8", "deeply-nested", "form", "text-plain"],
)
def test_a_body_that_is_not_json_is_400(client, data, content_type, detail):
    response = client.post("/api/v1/auth/login", data=data, content_type=content_type)
    assert response.status_code == 400
    assert response.get_json() == {"detail": detail}
