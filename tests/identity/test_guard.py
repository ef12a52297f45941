"""Access tokens (datahub.identity.tokens): the claims kept for a verified token answer as
PyJWT does, on every token; the guard's user lookup keeps few connections."""

import base64
import json
import os
import random
import time

import pytest

from datahub.identity import tokens
from datahub.identity.errors import InvalidToken, TokenExpired
from tests.identity.auth.tokens import alg_none, forge


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


def variants():
    """Valid tokens and near misses: claims of every wrong type, and byte-level damage."""
    now = int(time.time())
    sub = "4d1c3d49-2d0a-4f0e-9d59-0c5e0b9f6a11"
    tokens = [
        forge(sub),
        forge(sub, aud=["other", "datahub-api"]),
        forge(sub, aud=["other"]),
        forge(sub, iat=now - 4000),
        forge(sub, iat=now + 3600),
        forge(sub, nbf=now + 3600),
        forge(sub, exp="soon"),
        forge(sub, exp=True),
        forge(sub, nbf="x"),
        forge(sub, nbf=None),
        forge(123),
        forge(sub, jti=5),
        forge(sub, iss=None),
        forge(sub, aud=None),
        forge(sub, exp=now - 1),
        forge(sub, exp=now + 1),
        forge(sub, secret="x" * 48),
        forge(sub, algorithm="HS384"),
        alg_none(sub),
        "a.b.c",
        "..",
        "a.b",
        "a.b.c.d",
        "",
        forge(sub, exp=now - 1, iss="elsewhere"),
        forge(sub, exp=now - 1, aud=["other"]),
        forge(sub, iat=now + 3600, iss="elsewhere"),
        forge(sub, type_="refresh"),
        forge(sub, type_="refresh", exp=now - 1),
        forge(sub, type_=None),
        forge(sub, type_="refresh", iss="elsewhere"),
        forge(sub, sid="a-session"),
        forge(sub, sid=7),
        forge(sub, sid=7, exp=now - 1),
        "eyJhbGciOiJIUzI1NiJ9.e30.",
        "eyJhbGciOiJIUzI1NiJ9..sig",
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


def test_kept_claims_answer_as_pyjwt_does(app):
    """Every token, valid or damaged: the first answer is PyJWT's (through the codec, as for
    a refresh token), and the second, from the kept claims when the first passed, the same."""
    codec = tokens.codec(app)
    answers = {"ok": 0, "expired": 0, "invalid": 0}
    disagreements = []
    for token in variants():
        pyjwt = outcome(lambda text: codec.decode(text, tokens.ACCESS), token)
        first, again = outcome(codec.decode_access, token), outcome(codec.decode_access, token)
        answers[first] += 1
        if not pyjwt == first == again:
            disagreements.append((token, pyjwt, first, again))
        assert (token in codec.verified) == (first == "ok")
    assert disagreements == []
    assert all(answers.values()), answers  # each answer was given


@pytest.mark.parametrize(
    "config_overrides", [{"JWT_ALGORITHM": "HS512", "JWT_SECRET_KEY": "k" * 64}]
)
def test_the_configured_algorithm_is_the_only_one_accepted(app):
    codec = tokens.codec(app)
    assert outcome(codec.decode_access, forge("u", secret="k" * 64, algorithm="HS512")) == "ok"
    assert outcome(codec.decode_access, forge("u", secret="k" * 64, algorithm="HS256")) == "invalid"


def test_an_asymmetric_algorithm_refuses_hmac_tokens(app):
    codec = tokens.TokenCodec({**app.config, "JWT_ALGORITHM": "RS256"})
    assert outcome(codec.decode_access, forge("u")) == "invalid"  # an HS256 token is refused


def test_a_token_verified_before_is_still_checked_against_the_clock(app, monkeypatch):
    codec = tokens.codec(app)
    now = time.time()
    token = forge("u", lifetime=60)
    assert outcome(codec.decode_access, token) == "ok"
    assert token in codec.verified
    monkeypatch.setattr(time, "time", lambda: now + 120)
    assert outcome(codec.decode_access, token) == "expired"
    monkeypatch.setattr(time, "time", lambda: now - 3600)  # a clock set back: iat in future
    assert outcome(codec.decode_access, token) == "invalid"


def test_the_cache_of_verified_tokens_is_bounded(app, monkeypatch):
    codec = tokens.codec(app)
    monkeypatch.setattr(codec.verified, "maxsize", 3)
    forged = [forge(f"user-{n}") for n in range(5)]
    for token in forged:
        assert outcome(codec.decode_access, token) == "ok"
    assert list(codec.verified) == forged[2:]  # the oldest went first
    assert outcome(codec.decode_access, forged[0]) == "ok"  # verified again, not refused


def test_the_cache_is_bounded_under_many_threads():
    """A worker's threads fill it at once, without a lock: none fails, the bound holds."""
    from concurrent.futures import ThreadPoolExecutor

    from datahub.identity.fifo_cache import FifoCache

    cache = FifoCache(50)

    def fill(thread):
        for n in range(2000):
            assert cache.keep((thread, n), n) == n

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(fill, range(16)))
    assert 0 < len(cache) <= 50 + 16


def test_refused_tokens_are_not_kept(app):
    codec = tokens.codec(app)
    for token in (
        forge("u", secret="x" * 48),
        forge("u", iss="elsewhere"),
        "a.b.c",
        forge("u", type_="refresh"),
    ):
        assert outcome(codec.decode_access, token) == "invalid"
    assert codec.verified == {}


def test_verified_claims_cannot_be_changed_by_a_request(app):
    claims = tokens.codec(app).decode_access(forge("u"))
    with pytest.raises(AttributeError):
        claims.user_id = "someone-else"


def test_the_lookup_keeps_its_own_connection_and_replaces_a_dead_one(app, client, make_user):
    from datahub.app.extensions import db
    from tests.conftest import bearer, login

    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    guard = app.extensions["datahub.access_guard"]
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    [(_, kept)] = guard.connections.idle
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    assert guard.connections.idle == [(os.getpid(), kept)]
    with app.app_context():
        assert db.engine.pool.checkedout() == 0  # it takes no slot from the ORM's pool
    kept.close()  # as a database restart would leave it
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    assert [connection for _, connection in guard.connections.idle] != [kept]
    assert len(guard.connections.opened) == 1


def test_closing_the_lookup_connections_closes_them_at_once(app, client, make_user):
    """``close()`` (the tests' app teardown) closes every kept connection now, not when
    the app is collected; the next lookup opens a new one."""
    from tests.conftest import bearer, login

    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    guard = app.extensions["datahub.access_guard"]
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    [(_, kept)] = guard.connections.opened
    guard.connections.close()
    assert (guard.connections.opened, guard.connections.idle) == ([], [])
    with pytest.raises(guard.engine.dialect.loaded_dbapi.Error):
        kept.cursor().execute("SELECT 1")
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    assert len(guard.connections.opened) == 1


def test_many_threads_keep_few_lookup_connections(app, client, make_user):
    """Each worker runs many threads: they share a few kept connections instead of each
    holding one (64 threads x 5 workers would exceed PostgreSQL's connection limit)."""
    from concurrent.futures import ThreadPoolExecutor

    from datahub.identity.guard import MAX_IDLE_LOOKUP_CONNECTIONS
    from tests.conftest import bearer, login

    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    guard = app.extensions["datahub.access_guard"]
    with ThreadPoolExecutor(32) as pool:
        answers = list(
            pool.map(
                lambda _: app.test_client().get("/api/v1/auth/me", headers=headers).status_code,
                range(200),
            )
        )
    assert answers == [200] * 200
    assert len(guard.connections.idle) <= MAX_IDLE_LOOKUP_CONNECTIONS
    # The others were closed, none leaked.
    assert len(guard.connections.opened) == len(guard.connections.idle)


def test_a_database_that_cannot_be_reached_answers_503(app, client, make_user, monkeypatch):
    from tests.conftest import bearer, login

    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    guard = app.extensions["datahub.access_guard"]
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    for _, connection in guard.connections.idle:
        connection.close()
    error = guard.engine.dialect.loaded_dbapi.OperationalError("connection refused")

    def refuse():
        raise error

    monkeypatch.setattr(guard.engine, "raw_connection", refuse)
    response = client.get("/api/v1/auth/me", headers=headers)
    assert response.status_code == 503
    assert response.get_json() == {"detail": "Service unavailable"}
    assert response.headers["Retry-After"] == "1"
