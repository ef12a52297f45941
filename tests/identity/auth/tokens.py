"""Forge tokens for tests: the same claims the service issues, with one thing wrong."""

import time
import uuid

import jwt

from tests.conftest import TEST_SECRET


def forge(
    sub,
    *,
    type_="access",
    secret=TEST_SECRET,
    algorithm="HS256",
    lifetime=1800,
    iat=None,
    ver=0,
    **overrides,
):
    now = int(time.time()) if iat is None else iat
    claims = {
        "fresh": False,
        "iat": now,
        "nbf": now,
        "jti": str(uuid.uuid4()),
        "type": type_,
        "sub": sub,
        "iss": "datahub",
        "aud": "datahub-api",
        "exp": now + lifetime,
        "ver": ver,
    }
    claims.update(overrides)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, secret, algorithm=algorithm)


def alg_none(sub):
    """A token with ``alg: none`` and no signature."""
    import base64
    import json

    def part(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    now = int(time.time())
    claims = {
        "iat": now,
        "nbf": now,
        "jti": str(uuid.uuid4()),
        "type": "access",
        "sub": sub,
        "iss": "datahub",
        "aud": "datahub-api",
        "exp": now + 600,
        "ver": 0,
    }
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."
