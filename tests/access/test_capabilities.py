"""``capabilities``: what the caller may do to a dataset, collection or pipeline, in its
get and in lists, is what the server then allows (docs/guides/access.rst)."""

import pytest
from sqlalchemy import event

from datahub.app.extensions import db
from tests.access.conftest import grant, person, world  # noqa: F401  (fixtures)
from tests.access.test_matrix import MANAGERS, PERSON, READ_ONLY, WRITERS
from tests.pipelines.helpers import create_pipeline, source
from tests.resources import actors, create_collection, create_dataset  # noqa: F401

KINDS = ("datasets", "collections", "pipelines")
CALLERS = (
    "owner",
    "admin",
    "read grantee",
    "write grantee",
    "group member",
    "group writer",
    "viewer with write",
    "owner's read token",
    "write grantee's token",
)


def expected(caller):
    """What ``caller`` may do: a role is a ceiling (a viewer granted ``write`` reads), and a
    token of ``read`` alone changes nothing."""
    who = PERSON.get(caller, caller)
    changes = caller not in READ_ONLY
    return {"write": changes and who in WRITERS, "manage": changes and who in MANAGERS}


@pytest.fixture
def with_viewer_writer(world, client, make_user):  # noqa: F811
    """The world, plus a viewer granted ``write`` on each of its rows."""
    viewer = world.people["viewer with write"] = person(client, make_user, "vw", ["viewer"])
    owner = world.people["owner"].headers
    for kind in KINDS:
        grant(client, owner, kind, row_of(world, kind)["id"], f"user:{viewer.id}", "write")
    return world


def row_of(world, kind):
    return {"datasets": world.dataset, "collections": world.collection}.get(kind, world.pipeline)


@pytest.mark.parametrize("kind", KINDS)
def test_get_and_list_show_what_the_caller_may_do(client, with_viewer_writer, kind):
    world = with_viewer_writer
    row = row_of(world, kind)
    for caller in CALLERS:
        headers = world.people[caller].headers
        got = client.get(f"/api/v1/{kind}/{row['id']}", headers=headers)
        assert got.status_code == 200, caller
        assert got.get_json()["capabilities"] == expected(caller), caller
        page = client.get(f"/api/v1/{kind}/?sort=name", headers=headers).get_json()
        [listed] = [item for item in page["items"] if item["id"] == row["id"]]
        assert listed["capabilities"] == expected(caller), caller


@pytest.mark.parametrize("kind", KINDS)
def test_the_server_allows_what_capabilities_say(client, with_viewer_writer, kind):
    """A change of the description needs ``write``; of the visibility, ``manage``."""
    world = with_viewer_writer
    url = f"/api/v1/{kind}/{row_of(world, kind)['id']}"
    for caller in CALLERS:
        headers = world.people[caller].headers
        capabilities = client.get(url, headers=headers).get_json()["capabilities"]
        changed = client.patch(url, json={"description": caller}, headers=headers)
        assert changed.status_code == (200 if capabilities["write"] else 403), caller
        if changed.status_code == 200:
            assert changed.get_json()["capabilities"] == capabilities, caller
        shared = client.patch(url, json={"visibility": "private"}, headers=headers)
        assert shared.status_code == (200 if capabilities["manage"] else 403), caller


def count_statements(app, call):
    """``call()``'s response and the number of statements it ran."""
    statements = []
    with app.app_context():
        engine = db.engine
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        response = call()
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    assert response.status_code == 200, response.get_json()
    return response.get_json(), len(statements)


@pytest.mark.parametrize("kind", KINDS)
def test_a_page_reads_its_grants_in_one_query(app, client, actors, kind):  # noqa: F811
    """An editor's page of rows it owns, rows it holds a grant on and rows it does not:
    as many statements for 3 items as for 30."""
    owner, editor = actors["editor"], actors["other_editor"]
    dataset_id = source(client, owner.headers)["id"]
    make = {
        "datasets": lambda headers, name: create_dataset(client, headers, name),
        "collections": lambda headers, name: create_collection(client, headers, name),
        "pipelines": lambda headers, name: create_pipeline(client, headers, dataset_id, name=name),
    }[kind]
    for i in range(10):
        make(editor.headers, f"mine {i}")
        row = make(owner.headers, f"granted {i}")
        grant(client, owner.headers, kind, row["id"], f"user:{editor.id}", ("read", "write")[i % 2])
        make(owner.headers, f"internal {i}")
    counts = {}
    for limit in (3, 30):
        body, counts[limit] = count_statements(
            app,
            lambda: client.get(f"/api/v1/{kind}/?limit={limit}&sort=name", headers=editor.headers),
        )
        assert len(body["items"]) == limit
    assert counts[3] == counts[30]
    by_name = {item["name"]: item["capabilities"] for item in body["items"]}
    assert by_name["mine 0"] == {"write": True, "manage": True}
    assert by_name["granted 1"] == {"write": True, "manage": False}
    assert by_name["granted 0"] == by_name["internal 0"] == {"write": False, "manage": False}
