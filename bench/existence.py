"""Existence benchmark: does the time of a 404 tell a private dataset from a missing one?
(bench/README.rst, "Existence"; docs/guides/access.rst, "Visibility").

    python -m bench.existence                  # SQLite (~1 minute)
    python -m bench.existence --database-url postgresql://postgres@127.0.0.1:5432/bench

A viewer who holds a few grants (directly and through a group) asks, through the app in
this process (the Flask test client: the server's own work, no network noise), for
private datasets of another user that they may not read and for ids that do not exist,
strictly alternated, ``--requests`` of each after a warm-up. Both answer 404 ``Dataset
not found``; printed: the median and p90 of each, in ms, and their ratios.
"""

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import EMAIL, PASSWORD, datahub_env, prepare_datahub  # noqa: E402

VIEWER = "viewer@bench.example"
PRIVATE = 50  # private datasets the viewer may not read


def seed(app, client):
    """The owner's datasets (private, and internal ones granted to the viewer), the
    viewer's group and grants; the viewer's headers and the private ids."""
    from datahub.app.extensions import db
    from datahub.identity.group_models import Group, GroupMember
    from datahub.identity.users import services
    from datahub.platform.database import utcnow

    with app.app_context():
        viewer = services.create_user(email=VIEWER, password=PASSWORD, name="V", roles=["viewer"])
        group = Group(name="g", name_key="g", description="", source="local", created_at=utcnow())
        db.session.add(group)
        db.session.flush()
        db.session.add(GroupMember(group_id=group.id, user_id=viewer.id))
        db.session.commit()
        viewer_id, group_id = viewer.id, group.id
    owner = login(client, EMAIL)
    private = []
    for number in range(PRIVATE + 4):
        body = {"name": f"d{number}", "visibility": "private"}
        dataset = client.post("/api/v1/datasets/", json=body, headers=owner).get_json()
        if number < PRIVATE:
            private.append(dataset["id"])
        else:  # a grant to the viewer and one to their group
            principal = f"user:{viewer_id}" if number % 2 else f"group:{group_id}"
            grant = {"principal": principal, "permission": "read"}
            client.post(f"/api/v1/datasets/{dataset['id']}/grants", json=grant, headers=owner)
    return login(client, VIEWER), private


def login(client, email):
    answer = client.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
    return {"Authorization": f"Bearer {answer.get_json()['access_token']}"}


def timed(client, headers, dataset_id):
    start = time.perf_counter()
    response = client.get(f"/api/v1/datasets/{dataset_id}", headers=headers)
    elapsed = time.perf_counter() - start
    assert response.status_code == 404, response.get_json()
    return elapsed * 1000


def measure(client, headers, private, requests):
    """Alternated requests: ``{"private": [ms...], "missing": [ms...]}``."""
    missing = [10_000_000 + i for i in range(len(private))]
    times = {"private": [], "missing": []}
    for _ in range(100):  # warm-up
        timed(client, headers, private[0]), timed(client, headers, missing[0])
    for i in range(requests):
        pair = [("private", private[i % len(private)]), ("missing", missing[i % len(missing)])]
        for kind, dataset_id in pair if i % 2 else reversed(pair):
            times[kind].append(timed(client, headers, dataset_id))
    return times


def p90(values):
    return statistics.quantiles(values, n=10)[-1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="PostgreSQL (its public schema is replaced)")
    parser.add_argument("--requests", type=int, default=3000, help="of each kind")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as instance:
        env = datahub_env(Path(instance), args.database_url, rounds=4)
        os.environ.update(env)
        app = prepare_datahub(env)
        from datahub import create_app

        app = create_app()
        client = app.test_client()
        headers, private = seed(app, client)
        logging.disable(logging.INFO)  # the audit log's lines
        times = measure(client, headers, private, args.requests)
    medians = {kind: statistics.median(values) for kind, values in times.items()}
    p90s = {kind: p90(values) for kind, values in times.items()}
    for kind in ("private", "missing"):
        print(f"{kind:8} median {medians[kind]:.3f} ms  p90 {p90s[kind]:.3f} ms")
    ratio = medians["private"] / medians["missing"]
    print(f"private / missing: median {ratio:.3f}x, p90 {p90s['private'] / p90s['missing']:.3f}x")


if __name__ == "__main__":
    main()
