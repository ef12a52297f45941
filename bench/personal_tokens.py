"""The ``me_pat`` case of bench/run.py: ``GET /auth/me`` with a personal access token
(``dhp_...``) against the same with a login's JWT, on the same server in interleaved
rounds, without and with the auth cache (``--auth-cache-redis``). Target: ≥ 0.9×, the
median of the rounds' ratios (each round measures both, in alternating order: on a shared
machine the load drifts more between rounds than between the two halves of one).

    python bench/run.py --cases me_pat
"""

import json
import statistics
import uuid

from bench import run

ME = "/api/v1/auth/me"


def _tokens(server):
    """A login's access token and a personal access token of the bench user."""
    status, body, _ = server.request(
        "POST", "/api/v1/auth/login", {"email": run.EMAIL, "password": run.PASSWORD}
    )
    assert status == 200, body
    jwt = json.loads(body)["access_token"]
    status, body, _ = server.request(
        "POST",
        "/api/v1/auth/tokens",
        {"name": f"bench {uuid.uuid4().hex[:8]}", "scopes": ["read"]},
        headers={"Authorization": f"Bearer {jwt}"},
    )
    assert status == 201, body
    return jwt, json.loads(body)["token"]


def _measure(args, server):
    jwt, pat = _tokens(server)
    headers = {"jwt": {"Authorization": f"Bearer {jwt}"}, "pat": {"Authorization": f"Bearer {pat}"}}
    for name in headers:
        status, body, _ = server.request("GET", ME, headers=headers[name])
        assert status == 200, body
    rates = {"jwt": [], "pat": []}
    for round_ in range(args.rounds):  # interleaved, so drift hits both alike
        for name in ("jwt", "pat") if round_ % 2 == 0 else ("pat", "jwt"):
            rates[name].append(
                run.wrk(server.port, ME, headers[name], args.seconds, args.connections)
            )
    return rates


def bench_me_pat(args, env, report):
    cached_env = {
        **env,
        "DATAHUB_AUTH_CACHE_REDIS_URL": args.auth_cache_redis,
        "DATAHUB_AUTH_CACHE_CHANNEL": f"datahub-bench:{uuid.uuid4().hex}",
    }
    for label, server_env in (("no auth cache", env), ("auth cache", cached_env)):
        with run.Server("wsgi:app", server_env, args.workers) as server:
            rates = _measure(args, server)
        jwt, pat = statistics.median(rates["jwt"]), statistics.median(rates["pat"])
        ratio = statistics.median(p / j for p, j in zip(rates["pat"], rates["jwt"], strict=True))
        report(
            f"GET /auth/me req/s, personal access token vs JWT ({label})",
            f"{pat:.0f}",
            f"{jwt:.0f}",
            ratio,
            ">= 0.9",
            ratio >= 0.9,
        )
        print(
            "rounds (req/s): "
            + "; ".join(f"{n} " + ", ".join(f"{r:.0f}" for r in v) for n, v in rates.items()),
            flush=True,
        )
