"""The hand-written HMAC check in datahub.auth.guard must agree with PyJWT on every token."""
import base64
import json
import random
import time

import pytest

from datahub.auth.guard import AccessGuard
from datahub.errors import InvalidToken, TokenExpired
from tests.auth.tokens import alg_none, forge
from tests.conftest import TEST_SECRET


def outcome(decode, token):
    try:
        decode(token)
        return "ok"
    except TokenExpired:
        return "expired"
    except InvalidToken:
        return "invalid"


def b64(obj):
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def not_numbers(token):
    try:
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    except ValueError:
        return False
    return any(isinstance(claims.get(c), (bool, str)) for c in ("exp", "iat", "nbf"))


def variants():
    """Valid tokens and near misses: claims of every wrong type, and byte-level damage."""
    now = int(time.time())
    sub = "4d1c3d49-2d0a-4f0e-9d59-0c5e0b9f6a11"
    tokens = [
        forge(sub), forge(sub, aud=["other", "datahub-api"]), forge(sub, aud=["other"]),
        forge(sub, iat=now - 4000), forge(sub, iat=now + 3600), forge(sub, nbf=now + 3600),
        forge(sub, exp="soon"), forge(sub, exp=True), forge(sub, nbf="x"), forge(sub, nbf=None),
        forge(123), forge(sub, jti=5), forge(sub, iss=None), forge(sub, aud=None),
        forge(sub, exp=now - 1), forge(sub, exp=now + 1), forge(sub, secret="x" * 48),
        forge(sub, algorithm="HS384"), alg_none(sub), "a.b.c", "..", "a.b", "a.b.c.d", "",
        "eyJhbGciOiJIUzI1NiJ9.e30.", "eyJhbGciOiJIUzI1NiJ9..sig",
    ]
    valid = forge(sub)
    header, payload, signature = valid.split(".")
    tokens += [
        f"{b64({'alg': 'HS256', 'crit': ['exp']})}.{payload}.{signature}",
        f"{b64(b'[1, 2]')}.{payload}.{signature}",
        f"{header}.{b64(b'not json')}.{signature}",
        f"{header}.{payload}.{signature}=",
        f"{header}.{payload}.{signature}A",
        f"{header} .{payload}.{signature}",
    ]
    rng = random.Random(7)
    for _ in range(300):
        chars = list(valid)
        for _ in range(rng.randint(1, 3)):
            chars[rng.randrange(len(chars))] = rng.choice("AZaz09-_.=+/ ")
        tokens.append("".join(chars))
    return tokens


def test_hand_written_check_agrees_with_pyjwt(app):
    guard = app.extensions["datahub.access_guard"]
    assert guard.algorithm == "HS256" and guard.hmac_key == TEST_SECRET.encode()
    disagreements = []
    for token in variants():
        ours = outcome(guard._decode_hmac, token)
        theirs = outcome(guard._decode_pyjwt, token)
        # Both must accept the same tokens, and refuse with the same message, except for
        # wrongly typed claims (which only a holder of the key could sign): there the
        # hand-written check may be stricter (refuse what PyJWT lets through) or call a
        # boolean ``exp`` invalid where PyJWT calls it expired.
        if ours == theirs or (ours == "invalid" and (theirs == "ok" or not_numbers(token))):
            continue
        disagreements.append((token, ours, theirs))
    assert disagreements == []
    assert outcome(guard._decode_hmac, forge("someone")) == "ok"


@pytest.mark.parametrize("config_overrides", [{"JWT_ALGORITHM": "HS512", "JWT_SECRET_KEY": "k" * 64}])
def test_the_configured_algorithm_is_the_only_one_accepted(app):
    guard = app.extensions["datahub.access_guard"]
    assert outcome(guard.claims, forge("u", secret="k" * 64, algorithm="HS512")) == "ok"
    assert outcome(guard.claims, forge("u", secret="k" * 64, algorithm="HS256")) == "invalid"


def test_non_hmac_algorithms_fall_back_to_pyjwt(app):
    guard = AccessGuard.__new__(AccessGuard)
    guard.__dict__.update(app.extensions["datahub.access_guard"].__dict__)
    guard.algorithm = "RS256"
    assert outcome(guard.claims, forge("u")) == "invalid"  # an HS256 token is refused
