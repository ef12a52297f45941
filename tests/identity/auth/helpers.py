"""Shared helpers of the session tests: the refresh cookie and its claims."""

import jwt

from tests.conftest import TEST_SECRET

COOKIE = "__Secure-refresh_token"
PATH = "/api/v1/auth"


def cookie_value(client):
    cookie = client.get_cookie(COOKIE, path=PATH)
    return cookie.value if cookie else None


def use_cookie(client, value):
    client.set_cookie(COOKIE, value, path=PATH)


def claims(token):
    return jwt.decode(
        token, TEST_SECRET, algorithms=["HS256"], audience="datahub-api", issuer="datahub"
    )


def refresh(client, **kwargs):
    return client.post("/api/v1/auth/refresh", **kwargs)


def set_cookie_attributes(response):
    """The refresh cookie's Set-Cookie as (value, {attribute: value}); None if not set."""
    for header in response.headers.getlist("Set-Cookie"):
        name, _, rest = header.partition("=")
        if name == COOKIE:
            value, *attributes = [part.strip() for part in rest.split(";")]
            parsed = {}
            for attribute in attributes:
                key, _, val = attribute.partition("=")
                parsed[key] = val
            return value, parsed
    return None
