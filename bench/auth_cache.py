"""The ``me_cache`` case of bench/run.py: ``GET /auth/me`` with and without the auth cache
(datahub.identity.auth_cache), each against the bare-Flask ceiling in the same run, and a
check that a logout on one host is still refused by another at the very next request.

    python bench/run.py --cases me_cache --database-url postgresql://postgres@127.0.0.1:5432/helper_auth

Three gunicorn servers on the same settings and database: the ceiling, datahub without
the cache, datahub with it (``--auth-cache-redis``, Redis pub/sub), measured in interleaved
rounds; and a fourth, another host with the cache, for the revocation check. The
in-process costs (the drain, a kept answer, the query) are printed too.
"""

import json
import statistics
import time
import uuid

from bench import run


def _token(server):
    status, body, _ = server.request(
        "POST", "/api/v1/auth/login", {"email": run.EMAIL, "password": run.PASSWORD}
    )
    assert status == 200, body
    return json.loads(body)["access_token"]


def _me(server, token):
    status, body, _ = server.request(
        "GET", "/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}
    )
    return status, body


def revocation_check(host_a, host_b, tries):
    """Log in on A, answer /me on B several times (kept by B's workers), log out on A:
    B's very next /me must be 401. Returns how many of ``tries`` were refused at once."""
    refused = 0
    for _ in range(tries):
        token = _token(host_a)
        for _ in range(8):
            assert _me(host_b, token)[0] == 200
        status, body, _ = host_a.request(
            "POST", "/api/v1/auth/logout", headers={"Authorization": f"Bearer {token}"}
        )
        assert status == 200, body
        status, body = _me(host_b, token)
        refused += status == 401 and json.loads(body) == {"detail": "Token has been revoked"}
    return refused


def in_process_costs(env, samples=20000):
    """Microseconds per call: the channel's drain when nothing is pending, the guard's
    ``load`` answered from the cache, and ``load`` with the query (cache off)."""
    import os

    from datahub import create_app
    from datahub.identity import tokens

    os.environ.update(env)
    app = create_app()
    guard = app.extensions["datahub.access_guard"]
    cache = guard.cache
    with app.test_client() as client:
        token = _login_in_process(client)
    claims = tokens.codec(app).decode_access(token)
    deadline = time.monotonic() + 10
    while not _live(cache):
        assert time.monotonic() < deadline, "the auth cache's channel never became live"
        time.sleep(0.02)

    def per_call(function):
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(samples // 5):
                function()
            best = min(best, (time.perf_counter() - start) / (samples // 5))
        return best * 1e6

    drain = per_call(lambda: _live(cache))
    guard.load(claims)
    kept = per_call(lambda: guard.load(claims))
    guard.cache = None
    queried = per_call(lambda: guard.load(claims))
    guard.cache = cache
    cache.close()
    return drain, kept, queried


def _live(cache):
    with cache.channel.lock:
        return cache.channel.live()


def _login_in_process(client):
    response = client.post(
        "/api/v1/auth/login", json={"email": run.EMAIL, "password": run.PASSWORD}
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()["access_token"]


def bench_me_cache(args, env, report):
    cached_env = {
        **env,
        "DATAHUB_AUTH_CACHE_REDIS_URL": args.auth_cache_redis,
        "DATAHUB_AUTH_CACHE_CHANNEL": f"datahub-bench:{uuid.uuid4().hex}",
    }
    with (
        run.Server("wsgi:app", env, args.workers) as plain,
        run.Server("wsgi:app", cached_env, args.workers) as cached,
        run.Server("wsgi:app", cached_env, args.workers) as other_host,
    ):
        token = _token(plain)
        headers = {"Authorization": f"Bearer {token}"}
        status, me_body = _me(plain, token)
        assert status == 200, me_body
        ceiling_env = {"CEILING_BODY": me_body.decode()}
        with run.Server("bench.ceiling_app:app", ceiling_env, args.workers) as ceiling:
            rates = {"ceiling": [], "plain": [], "cached": []}
            for _ in range(args.rounds):  # interleaved, so drift hits all three alike
                for name, server in (("ceiling", ceiling), ("plain", plain), ("cached", cached)):
                    rates[name].append(
                        run.wrk(
                            server.port, "/api/v1/auth/me", headers, args.seconds, args.connections
                        )
                    )
        refused = revocation_check(other_host, cached, args.revocation_tries)
    ceiling_rate = statistics.median(rates["ceiling"])
    plain, cached = statistics.median(rates["plain"]), statistics.median(rates["cached"])
    # The uncached server is the reference beside it (the "me" case judges it).
    report(
        "GET /auth/me req/s vs bare Flask (no auth cache)",
        f"{plain:.0f}",
        f"{ceiling_rate:.0f}",
        plain / ceiling_rate,
        "reference",
        True,
    )
    report(
        "GET /auth/me req/s vs bare Flask (auth cache)",
        f"{cached:.0f}",
        f"{ceiling_rate:.0f}",
        cached / ceiling_rate,
        ">= 0.6",
        cached / ceiling_rate >= 0.6,
    )
    print(
        "rounds (req/s): "
        + "; ".join(
            f"{name} " + ", ".join(f"{rate:.0f}" for rate in values)
            for name, values in rates.items()
        ),
        flush=True,
    )
    tries = args.revocation_tries
    report(
        "logout on host A refused by host B at the next request (auth cache)",
        f"{refused}/{tries}",
        f"{tries}",
        refused / tries,
        "= 1.0",
        refused == tries,
    )
    drain, kept, queried = in_process_costs(cached_env)
    print(
        f"in-process, per call: drain of the channel with nothing pending {drain:.2f} us; "
        f"guard.load from the cache {kept:.2f} us; guard.load with the query "
        f"{queried:.2f} us",
        flush=True,
    )
