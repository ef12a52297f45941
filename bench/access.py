"""Access benchmark: what visibility and grants cost a list (bench/README.rst, "Access").

    python -m bench.access                       # SQLite (~2 minutes)
    python -m bench.access --database-url postgresql://postgres@127.0.0.1:5432/bench

``GET /api/v1/datasets/?limit=20`` p50 as a viewer, with 100,000 datasets of which 20%
are private, 1,000 groups and 50,000 grants, against the same request by an admin (who
may read everything: no access filter) on the same server, in interleaved rounds;
target ≤ 1.5×.
"""

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import EMAIL, PASSWORD, Server, datahub_env, prepare_datahub  # noqa: E402

VIEWER, ADMIN = "viewer@bench.example", "admin@bench.example"


def seed(env, args):
    """Datasets (every fifth private), users, groups and grants, in bulk."""
    import sqlalchemy as sa

    from datahub import create_app
    from datahub.app.extensions import db
    from datahub.datasets.models import Dataset
    from datahub.identity.group_models import Group, GroupMember
    from datahub.identity.users import services
    from datahub.platform.database import utcnow

    os.environ.update(env)
    app = create_app()
    rng = random.Random(7)
    with app.app_context():
        owner = services.find_by_email(EMAIL).id
        viewer = services.create_user(email=VIEWER, password=PASSWORD, name="V", roles=["viewer"])
        services.create_user(email=ADMIN, password=PASSWORD, name="A", roles=["admin"])
        users = [viewer.id] + [
            services.create_user(
                email=f"user{i}@bench.example", password=PASSWORD, name="U", roles=["viewer"]
            ).id
            for i in range(args.users)
        ]
        now = utcnow()
        rows = [
            {
                "name": f"dataset {i}",
                "name_key": f"dataset {i}",
                "description": "",
                "owner_id": owner,
                "visibility": "private" if i % round(1 / args.private) == 0 else "internal",
                "created_at": now,
                "updated_at": now,
            }
            for i in range(1, args.datasets + 1)
        ]
        for start in range(0, len(rows), 5000):
            db.session.execute(sa.insert(Dataset), rows[start : start + 5000])
        db.session.execute(
            sa.insert(Group),
            [
                {
                    "name": f"g{i}",
                    "name_key": f"g{i}",
                    "description": "",
                    "source": "local",
                    "created_at": now,
                }
                for i in range(args.groups)
            ],
        )
        group_ids = list(db.session.scalars(sa.select(Group.id)))
        members = {(gid, uid) for uid in users for gid in rng.sample(group_ids, 5)}
        db.session.execute(
            sa.insert(GroupMember),
            [{"group_id": g, "user_id": u, "added_at": now} for g, u in members],
        )
        private = list(
            db.session.scalars(sa.select(Dataset.id).where(Dataset.visibility == "private"))
        )
        grants = set()
        while len(grants) < args.grants:
            if rng.random() < 0.5:
                grants.add((rng.choice(private), f"group:{rng.choice(group_ids)}"))
            else:
                grants.add((rng.choice(private), f"user:{rng.choice(users)}"))
        insert_read_grants(grants, owner, now)
        db.engine.dispose()


def insert_read_grants(grants, owner, now):
    """``read`` grants on datasets, ``(dataset_id, "user:<id>" or "group:<id>")`` each, in
    bulk, committed."""
    import sqlalchemy as sa

    from datahub.app.extensions import db
    from datahub.resources.grants.models import DatasetGrant

    rows = []
    for dataset_id, principal in sorted(grants):
        kind, _, ident = principal.partition(":")
        rows.append(
            {
                "resource_id": dataset_id,
                "principal": principal,
                "user_id": ident if kind == "user" else None,
                "group_id": int(ident) if kind == "group" else None,
                "permission": "read",
                "created_at": now,
                "created_by": owner,
            }
        )
    for start in range(0, len(rows), 5000):
        db.session.execute(sa.insert(DatasetGrant), rows[start : start + 5000])
    db.session.commit()


def login(server, email):
    _, body, _ = server.request(
        "POST", "/api/v1/auth/login", {"email": email, "password": PASSWORD}
    )
    return {"Authorization": f"Bearer {json.loads(body)['access_token']}"}


def p50(server, headers, samples):
    times = []
    for i in range(samples):
        path = f"/api/v1/datasets/?limit=20&offset={(i * 20) % 80}"
        start = time.perf_counter()
        status, body, _ = server.request("GET", path, headers=headers)
        times.append(time.perf_counter() - start)
        assert status == 200, body[:200]
    return statistics.median(times), json.loads(body)["total"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", help="PostgreSQL URL (its public schema is rebuilt)")
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--private", type=float, default=0.2)
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--grants", type=int, default=50_000)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as instance:
        env = datahub_env(instance, args.database_url, 4)
        prepare_datahub(env)
        seed(env, args)
        with Server("wsgi:app", env, args.workers) as server:
            viewer, admin = login(server, VIEWER), login(server, ADMIN)
            ours, base = [], []
            for _ in range(args.rounds):
                (viewer_p50, shown), (admin_p50, total) = (
                    p50(server, viewer, args.samples),
                    p50(server, admin, args.samples),
                )
                ours.append(viewer_p50)
                base.append(admin_p50)
    ratio = statistics.median(ours) / statistics.median(base)
    print(
        f"GET /datasets/?limit=20 p50 as a viewer ({shown:,} of {total:,} readable): "
        f"{statistics.median(ours) * 1000:.2f} ms vs as an admin "
        f"{statistics.median(base) * 1000:.2f} ms = {ratio:.2f}x (target <= 1.5)"
    )
    return 0 if ratio <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
