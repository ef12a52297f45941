"""The token codec (datahub.identity.tokens) and the refresh cookie's loaders
(datahub.identity.token_loaders): both token types, and nobody else reads claims."""

import ast
import pathlib
import time

import jwt
import pytest

from datahub.identity import token_loaders, tokens
from datahub.identity.errors import InvalidToken, TokenExpired
from datahub.identity.models import User
from tests.conftest import TEST_SECRET, login
from tests.identity.auth.tokens import forge

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "datahub"
CODEC = PACKAGE / "identity" / "tokens.py"
LOADERS = PACKAGE / "identity" / "token_loaders.py"
# Reads another party's tokens (an OIDC provider's ID tokens), not datahub's.
ID_TOKENS = PACKAGE / "identity" / "oidc.py"


@pytest.fixture
def codec(app):
    return tokens.codec(app)


def _now():
    return int(time.time())


def _tamper(token):
    """The same token with the first character of its signature changed (the last one
    may carry only padding bits)."""
    rest, _, signature = token.rpartition(".")
    return f"{rest}.{'B' if signature[0] == 'A' else 'A'}{signature[1:]}"


# -- round trips -----------------------------------------------------------------------


def test_an_access_token_round_trips(codec):
    now = _now()
    token = codec.encode_access("user-1", 3, now, now + 60, session_id="session-1")
    expected = tokens.AccessClaims(
        "user-1",
        token_id=codec.decode_access(token).token_id,
        session_id="session-1",
        version=3,
        issued_at=now,
        not_before=now,
        expires_at=now + 60,
    )
    assert codec.decode_access(token) == expected  # kept: from the verified claims
    assert codec.decode(token, tokens.ACCESS) == expected
    assert codec.read(token, tokens.ACCESS) == expected


def test_each_access_token_has_its_own_id_and_may_have_no_session(codec):
    now = _now()
    first, second = (codec.encode_access("user-1", 0, now, now + 60) for _ in range(2))
    assert codec.decode_access(first).token_id != codec.decode_access(second).token_id
    assert codec.decode_access(first).session_id is None


def test_a_refresh_token_round_trips(codec):
    now = _now()
    token = codec.encode_refresh("user-1", "token-1", "session-1", now, now + 60, csrf="c" * 43)
    assert codec.decode(token, tokens.REFRESH) == tokens.RefreshClaims(
        "user-1", "token-1", "session-1", "c" * 43, now, now + 60
    )
    without = codec.encode_refresh("user-1", "token-2", "session-1", now, now + 60)
    assert codec.decode(without, tokens.REFRESH).csrf is None


def test_the_codecs_tokens_are_standard_jwts(codec):
    now = _now()
    token = codec.encode_access("user-1", 0, now, now + 60)
    claims = jwt.decode(
        token, TEST_SECRET, algorithms=["HS256"], audience="datahub-api", issuer="datahub"
    )
    assert claims["sub"] == "user-1" and claims["nbf"] == claims["iat"] == now


@pytest.mark.parametrize("config_overrides", [{"JWT_ENCODE_NBF": False}])
def test_nbf_is_left_out_when_not_configured(codec):
    now = _now()
    token = codec.encode_access("user-1", 0, now, now + 60)
    assert "nbf" not in jwt.decode(token, options={"verify_signature": False})
    assert codec.decode_access(token).not_before == now  # then iat stands for it


# -- refusals --------------------------------------------------------------------------


def _issued(codec, type_, issued_at=None, lifetime=60):
    now = _now() if issued_at is None else issued_at
    if type_ == tokens.ACCESS:
        return codec.encode_access("user-1", 0, now, now + lifetime, session_id="session-1")
    return codec.encode_refresh("user-1", "token-1", "session-1", now, now + lifetime)


def _re_signed(token, **changes):
    """``token`` with its claims changed (None: removed), signed with the right key."""
    payload = jwt.decode(token, options={"verify_signature": False})
    payload.update(changes)
    payload = {name: value for name, value in payload.items() if value is not None}
    return jwt.encode(payload, TEST_SECRET, algorithm="HS256")


def decoders(codec, type_):
    """Every strict decoder of ``type_``."""
    found = [lambda token: codec.decode(token, type_)]
    if type_ == tokens.ACCESS:
        found += [codec.decode_access]
    return found


def test_a_token_of_the_other_type_is_refused(codec):
    now = _now()
    access, refresh = _issued(codec, tokens.ACCESS), _issued(codec, tokens.REFRESH)
    for decode in decoders(codec, tokens.ACCESS):
        with pytest.raises(InvalidToken):
            decode(refresh)
    for decode in decoders(codec, tokens.REFRESH):
        with pytest.raises(InvalidToken):
            decode(access)
    assert codec.read(refresh, tokens.ACCESS) is None
    assert codec.read(access, tokens.REFRESH, allow_expired=True) is None
    assert (
        codec.refresh_claims(
            {"type": "access", "sub": "u", "jti": "j", "fam": "f", "iat": now, "exp": now + 60}
        )
        is None
    )


@pytest.mark.parametrize("type_", [tokens.ACCESS, tokens.REFRESH])
def test_a_tampered_token_is_refused(codec, type_):
    token = _issued(codec, type_)
    header, _, signature = token.split(".")
    other_user = forge("user-2", type_=type_, fam="session-1").split(".")[1]
    for bad in (
        _tamper(token),
        f"{header}.{other_user}.{signature}",
        forge("user-1", type_=type_, fam="session-1", secret="s" * 48),
    ):
        for decode in decoders(codec, type_):
            with pytest.raises(InvalidToken) as caught:
                decode(bad)
            assert not isinstance(caught.value, TokenExpired)
        assert codec.read(bad, type_, allow_expired=True) is None


@pytest.mark.parametrize("type_", [tokens.ACCESS, tokens.REFRESH])
def test_an_expired_token_is_refused_as_expired(codec, type_):
    token = _issued(codec, type_, issued_at=_now() - 120)
    for decode in decoders(codec, type_):
        with pytest.raises(TokenExpired):
            decode(token)
    assert codec.read(token, type_) is None


@pytest.mark.parametrize("claim", tokens.REQUIRED_CLAIMS)
@pytest.mark.parametrize("type_", [tokens.ACCESS, tokens.REFRESH])
def test_a_token_without_a_required_claim_is_refused(codec, type_, claim):
    token = _issued(codec, type_)
    assert codec.read(_re_signed(token), type_) is not None  # the control
    for decode in decoders(codec, type_):
        with pytest.raises(InvalidToken):
            decode(_re_signed(token, **{claim: None}))
    assert codec.read(_re_signed(token, **{claim: None}), type_, allow_expired=True) is None


def test_a_refresh_token_without_its_session_is_refused(codec):
    with pytest.raises(InvalidToken):
        codec.decode(forge("user-1", type_="refresh"), tokens.REFRESH)


# -- logout's reading --------------------------------------------------------------------


def test_logout_reads_an_expired_refresh_token_but_nothing_unverified(codec):
    then = _now() - 3600
    expired = codec.encode_refresh("user-1", "token-1", "session-1", then, then + 60, csrf="c")
    claims = codec.read(expired, tokens.REFRESH, allow_expired=True)
    assert claims == tokens.RefreshClaims("user-1", "token-1", "session-1", "c", then, then + 60)
    assert codec.read(expired, tokens.REFRESH) is None  # only when asked
    for bad in (
        _tamper(expired),
        "",
        "not a token",
        "a.b.c",
        codec.encode_access("user-1", 0, then, then + 60),
    ):
        assert codec.read(bad, tokens.REFRESH, allow_expired=True) is None


def test_the_refresh_cookie_gives_its_claims_and_the_user(app, client, make_user):
    user = make_user()
    login(client)
    cookie = client.get_cookie("__Secure-refresh_token", path="/api/v1/auth")
    with app.test_request_context(
        "/api/v1/auth/refresh",
        method="POST",
        base_url="https://localhost",
        headers={"Cookie": f"__Secure-refresh_token={cookie.value}"},
    ):
        claims, orm_user = token_loaders.verified_refresh()
        assert claims == tokens.codec().decode(cookie.value, tokens.REFRESH)
        assert isinstance(orm_user, User)  # for rotation, which changes it
        assert orm_user.id == claims.user_id == user.id


# -- nobody else reads claims ------------------------------------------------------------

# Claim names: only the codec may write them. "type" (also OpenAPI's) and the token types
# count where something is looked up or compared: ``x["type"]``, ``x.get("type")``, ``==``.
CLAIM_NAMES = {"sub", "jti", "iat", "exp", "nbf", "iss", "aud", "ver", "sid", "fam", "csrf"}
LOOKED_UP = {"type", tokens.ACCESS, tokens.REFRESH}


def claim_mentions(source):
    """``(line, name)`` of every claim name written in ``source``."""
    tree = ast.parse(source)
    looked_up = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            looked_up.add(node.slice)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            looked_up.update(node.args[:1])
        elif isinstance(node, ast.Compare):
            looked_up.update([node.left, *node.comparators])
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (node.value in CLAIM_NAMES or (node.value in LOOKED_UP and node in looked_up))
    )


def test_the_scan_finds_claims_read_by_name():
    source = '''
claims["sid"]
payload.get("fam", None)
token.get("type") == "refresh"
f"user:{claims['sub']}"
kind = "access" if token_kind == "access" else None
{"type": "string"}
schema["properties"]["type"]
"""A docstring about sid and jti."""
description = "the session"
'''
    assert claim_mentions(source) == [
        (2, "sid"),
        (3, "fam"),
        (4, "refresh"),
        (4, "type"),
        (5, "sub"),
        (6, "access"),
        (8, "type"),
    ]


def test_only_the_codec_knows_claim_names():
    mentions = sorted(
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name!r}"
        for path in PACKAGE.rglob("*.py")
        if path not in (CODEC, ID_TOKENS) and "migrations" not in path.parts
        for line, name in claim_mentions(path.read_text())
    )
    assert mentions == []
    assert claim_mentions(CODEC.read_text())  # the scan does see the codec's


CURRENT_USER = {"current_user", "get_current_user"}


def test_there_is_one_current_user():
    """datahub.identity.guard's (a Principal); flask-jwt-extended's (an ORM User) is unused."""
    others = []
    for path in PACKAGE.rglob("*.py"):
        if path == PACKAGE / "identity" / "guard.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.module == "datahub.identity.guard":
                    continue  # the one
                names = [alias.name for alias in node.names]
                names += [alias.asname for alias in node.names if alias.asname]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names = [node.id]
            else:
                continue
            others += [
                f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {name}"
                for name in names
                if name in CURRENT_USER
            ]
    assert others == []


def test_only_the_loaders_use_flask_jwt_extended_for_tokens():
    """Besides the loaders: the JWTManager object (datahub.app.extensions) and its exceptions."""
    users = []
    for path in PACKAGE.rglob("*.py"):
        if path == LOADERS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [
                    alias.name
                    for alias in node.names
                    if alias.name.partition(".")[0] == "flask_jwt_extended"
                ]
            elif isinstance(node, ast.ImportFrom) and node.module == "flask_jwt_extended":
                names = [alias.name for alias in node.names if alias.name != "JWTManager"]
            else:
                continue
            users += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {name}" for name in names]
    assert users == []
