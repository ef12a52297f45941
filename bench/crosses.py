"""Which of datahub's files a request crosses: the modules of ``datahub/`` whose code runs
while the app answers one ``PATCH /api/v1/datasets/{id}`` (a change of a dataset's
description), traced with ``sys.settrace``, and those of them that ``GET /healthz`` crosses
too (what every request crosses: the request ids, the body bound, the metrics, the error
handlers...). In-process, through the Flask test client and so the app's WSGI stack; the
server under it (datahub.platform.serving, gunicorn) is not counted. The request is
traced after one like it has run, so that what runs once per process (lazy imports, the
OpenAPI document) is not counted.

    python bench/crosses.py [--list]
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def crossed(client, method, path, **kwargs):
    """The files of ``datahub/`` whose code runs while ``client`` sends one request."""
    package = str(ROOT / "datahub") + os.sep
    files = set()

    def tracer(frame, event, arg):
        filename = frame.f_code.co_filename
        if filename.startswith(package):
            files.add(os.path.relpath(filename, ROOT))
        return None  # the calls are enough: no line events

    sys.settrace(tracer)
    try:
        response = client.open(path, method=method, **kwargs)
    finally:
        sys.settrace(None)
    assert response.status_code < 300, (method, path, response.status_code, response.data)
    return files


def measure():
    instance = tempfile.mkdtemp(prefix="datahub-crosses-")
    os.environ.update(
        {
            "DATAHUB_INSTANCE_PATH": instance,
            "DATAHUB_BCRYPT_ROUNDS": "4",
            "DATAHUB_SQLALCHEMY_DATABASE_URI": f"sqlite:///{instance}/datahub.db",
        }
    )
    import flask_migrate

    from datahub import create_app
    from datahub.app.extensions import db
    from datahub.identity.users import services

    app = create_app()
    with app.app_context():
        flask_migrate.upgrade()
        services.create_user(
            email="crosses@example.com", password="crosses-password", name="C", roles=["editor"]
        )
    client = app.test_client()
    login = client.post(
        "/api/v1/auth/login", json={"email": "crosses@example.com", "password": "crosses-password"}
    )
    headers = {"Authorization": f"Bearer {login.get_json()['access_token']}"}
    created = client.post("/api/v1/datasets/", json={"name": "crossed"}, headers=headers)
    path = f"/api/v1/datasets/{created.get_json()['id']}"
    for number in range(2):  # the first of each: what runs once per process
        client.patch(path, json={"description": f"warm {number}"}, headers=headers)
        client.get("/healthz")
    patch = crossed(client, "PATCH", path, json={"description": "traced"}, headers=headers)
    every = crossed(client, "GET", "/healthz")
    with app.app_context():
        db.engine.dispose()
    return patch, patch & every


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="name the files")
    args = parser.parse_args()
    patch, shared = measure()
    print(f"PATCH /api/v1/datasets/{{id}} crosses {len(patch)} files of datahub/")
    print(f"{len(shared)} of them are crossed by GET /healthz too (every request)")
    if args.list:
        for name in sorted(patch):
            print(("  * " if name in shared else "    ") + name)


if __name__ == "__main__":
    main()
