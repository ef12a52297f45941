"""Helpers for the resource tests: users of every role, logged in, and quick creates."""

import contextlib
import threading
from dataclasses import dataclass

import pytest

from tests.conftest import bearer, login


@dataclass
class Actor:
    role: str
    id: str
    headers: dict


ROLES = {
    "admin": ["admin"],
    "editor": ["editor"],
    "other_editor": ["editor"],
    "viewer": ["viewer"],
    "nobody": [],
}


class Actors(dict):
    """Logged-in users by key, each made at its first use: most tests need one or two of
    them, and each costs a user and a login."""

    def __init__(self, client, make_user):
        super().__init__()
        self.client, self.make_user = client, make_user

    def __missing__(self, key):
        email = f"{key}@example.com"
        user = self.make_user(email=email, roles=ROLES[key])
        response = login(self.client, email)
        assert response.status_code == 200, response.get_json()
        actor = self[key] = Actor(key, user.id, bearer(response.get_json()["access_token"]))
        return actor

    def everyone(self):
        """Make every one of them now, in ``ROLES``' order."""
        return [self[key] for key in ROLES]


@pytest.fixture
def actors(client, make_user):
    """A logged-in user per role, plus a second editor: ``actors["editor"]`` etc."""
    return Actors(client, make_user)


def create_dataset(client, headers, name="Dataset", **fields):
    response = client.post("/api/v1/datasets/", json={"name": name, **fields}, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def create_collection(client, headers, name="Collection", **fields):
    response = client.post("/api/v1/collections/", json={"name": name, **fields}, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def upload(client, headers, dataset_id, data, **kwargs):
    kwargs.setdefault("content_type", "application/octet-stream")
    return client.put(f"/api/v1/datasets/{dataset_id}/file", data=data, headers=headers, **kwargs)


def validation_error(loc, msg, type_):
    return {"loc": loc, "msg": msg, "type": type_}


def at_once(count, call):
    """``call(i)`` for i in 0..count-1, each in a thread of its own, all let go together
    (a barrier); the results in order."""
    barrier = threading.Barrier(count)
    results = [None] * count

    def run(i):
        barrier.wait(30)
        results[i] = call(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


@contextlib.contextmanager
def statements(app):
    """The SQL ``app``'s engine sends meanwhile, as text (its parameters aside)."""
    import sqlalchemy as sa

    from datahub.app.extensions import db

    sent = []

    def note(_connection, _cursor, statement, *_):
        sent.append(statement)

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", note)
    try:
        yield sent
    finally:
        sa.event.remove(engine, "before_cursor_execute", note)
