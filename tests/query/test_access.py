"""The SQL console reads only what its caller may read (docs/guides/access.rst): a dataset
that is not theirs to read is "not found" in the same bytes as a name nobody has, whether
named, pinned with ``@N`` or through ``pins``; grants, groups, internal visibility, admins
and personal tokens open what they open elsewhere, and nothing more. The answer's
``inputs`` are the versions read."""

import pytest

from tests.access.conftest import grant, make_group, personal_token
from tests.query.test_api import ok, query
from tests.resources import create_dataset, upload

SALARIES = b"name,pay\nann,100\nbob,200\n"
USERS = "/api/v1/users/"


def private(client, owner, name="salaries", data=SALARIES):
    dataset = create_dataset(client, owner.headers, name, visibility="private")
    assert upload(client, owner.headers, dataset["id"], data).status_code == 200
    return dataset


def answer(response):
    """What a caller sees of a response: its status, type and bytes."""
    return response.status_code, response.content_type, response.data


def not_found(name):
    return 422, "application/json", f'{{"detail":"Dataset not found: {name}"}}\n'.encode()


@pytest.fixture
def owner(actors):
    return actors["editor"]


@pytest.fixture
def viewer(actors):
    return actors["viewer"]


def test_another_users_private_dataset_is_not_found(client, actors, owner, viewer):
    sql = "SELECT * FROM salaries"
    unknown = {
        text: answer(query(client, viewer.headers, text))
        for text in (sql, 'SELECT * FROM "salaries@1"', "SELECT * FROM SALARIES")
    }
    assert unknown[sql] == not_found("salaries")
    private(client, owner)
    names = create_dataset(client, owner.headers, "names")  # internal: everyone reads it
    assert upload(client, owner.headers, names["id"], b"name\nann\n").status_code == 200
    assert ok(query(client, owner.headers, sql))["rows"] == [["ann", 100], ["bob", 200]]
    for caller in (viewer, actors["other_editor"]):
        for text, expected in unknown.items():
            assert answer(query(client, caller.headers, text)) == expected
        assert answer(query(client, caller.headers, 'SELECT * FROM "salaries@9"')) == not_found(
            "salaries@9"
        )
        joined = "SELECT * FROM names JOIN salaries USING (name)"
        assert answer(query(client, caller.headers, joined)) == not_found("salaries")


def test_pins_do_not_open_a_dataset(client, owner, viewer):
    sql = "SELECT * FROM salaries"
    pins = [{"dataset_id": 999999, "version": 1}]
    unknown = answer(query(client, viewer.headers, sql, pins=pins))
    dataset = private(client, owner)
    for version in (1, 2):
        pins = [{"dataset_id": dataset["id"], "version": version}]
        assert answer(query(client, viewer.headers, sql, pins=pins)) == unknown
        alone = ok(query(client, viewer.headers, "SELECT 1 AS one", pins=pins))
        assert (alone["rows"], alone["inputs"], alone["pipeline"]) == ([[1]], [], None)
    assert unknown == not_found("salaries")


def test_a_private_dataset_without_a_file_or_version_is_not_found(client, owner, viewer):
    create_dataset(client, owner.headers, "drafts", visibility="private")
    assert answer(query(client, viewer.headers, "SELECT * FROM drafts")) == not_found("drafts")
    assert answer(query(client, viewer.headers, 'SELECT * FROM "drafts@1"')) == not_found(
        "drafts@1"
    )
    shown = query(client, owner.headers, "SELECT * FROM drafts")
    assert shown.get_json() == {"detail": "Dataset has no file: drafts"}


def test_a_read_grant_opens_it_and_revoking_closes_it(client, actors, owner, viewer):
    dataset = private(client, owner)
    url = f"/api/v1/datasets/{dataset['id']}/grants"
    sql = "SELECT sum(pay) FROM salaries"
    made = grant(client, owner.headers, "datasets", dataset["id"], f"user:{viewer.id}", "read")
    answered = ok(query(client, viewer.headers, sql))
    assert answered["rows"] == [[300]]
    assert answered["inputs"] == [{"dataset_id": dataset["id"], "name": "salaries", "version": 1}]
    assert ok(query(client, viewer.headers, 'SELECT count(*) FROM "salaries@1"'))["rows"] == [[2]]
    writer = actors["other_editor"]
    grant(client, owner.headers, "datasets", dataset["id"], f"user:{writer.id}", "write")
    assert ok(query(client, writer.headers, sql))["rows"] == [[300]]

    assert client.delete(f"{url}/{made['id']}", headers=owner.headers).status_code == 204
    assert answer(query(client, viewer.headers, sql)) == not_found("salaries")
    assert answer(query(client, viewer.headers, 'SELECT * FROM "salaries@1"')) == not_found(
        "salaries@1"
    )
    assert ok(query(client, writer.headers, sql))["rows"] == [[300]]  # theirs stays


def test_a_group_grant_opens_it_and_leaving_the_group_closes_it(app, client, actors, owner):
    viewer, admin = actors["viewer"], actors["admin"]
    dataset = private(client, owner)
    group_id = make_group(app, "payroll team", viewer.id)
    sql = "SELECT name FROM salaries ORDER BY name"
    assert answer(query(client, viewer.headers, sql)) == not_found("salaries")
    grant(client, owner.headers, "datasets", dataset["id"], f"group:{group_id}", "read")
    assert ok(query(client, viewer.headers, sql))["rows"] == [["ann"], ["bob"]]

    left = client.delete(f"/api/v1/groups/{group_id}/members/{viewer.id}", headers=admin.headers)
    assert left.status_code == 200
    assert answer(query(client, viewer.headers, sql)) == not_found("salaries")


def test_internal_datasets_are_read_by_every_active_user(client, actors, owner):
    dataset = create_dataset(client, owner.headers, "open data")
    assert dataset["visibility"] == "internal"
    assert upload(client, owner.headers, dataset["id"], b"n\n1\n2\n").status_code == 200
    sql = 'SELECT sum(n) AS total FROM "open data"'
    for key in ("editor", "other_editor", "viewer", "admin"):
        assert ok(query(client, actors[key].headers, sql))["rows"] == [[3]], key

    nobody = query(client, actors["nobody"].headers, sql)  # a user with no role reads nothing
    assert (nobody.status_code, nobody.get_json()) == (403, {"detail": "Forbidden"})
    admin, viewer = actors["admin"], actors["viewer"]
    off = client.patch(f"{USERS}{viewer.id}", json={"is_active": False}, headers=admin.headers)
    assert off.status_code == 200
    assert query(client, viewer.headers, sql).status_code == 401


def test_admins_read_everything(client, actors, owner):
    salaries = private(client, owner)
    other = private(client, actors["other_editor"], "bonuses", b"name,bonus\nann,5\n")
    sql = "SELECT s.name, pay + bonus AS total FROM salaries s JOIN bonuses USING (name)"
    answered = ok(query(client, actors["admin"].headers, sql))
    assert answered["rows"] == [["ann", 105]]
    assert sorted(i["dataset_id"] for i in answered["inputs"]) == sorted(
        [salaries["id"], other["id"]]
    )
    assert answer(query(client, owner.headers, sql)) == not_found("bonuses")


def test_a_read_token_queries_what_its_user_may_read(client, actors, owner, viewer):
    token = personal_token(client, viewer, ["read"])
    refused = client.post("/api/v1/datasets/", json={"name": "x"}, headers=token.headers)
    assert refused.status_code == 403  # a read token changes nothing
    dataset = private(client, owner)
    sql = "SELECT count(*) FROM salaries"
    assert answer(query(client, token.headers, sql)) == not_found("salaries")
    made = grant(client, owner.headers, "datasets", dataset["id"], f"user:{viewer.id}", "read")
    assert ok(query(client, token.headers, sql))["rows"] == [[2]]
    own = personal_token(client, owner, ["read"])
    assert ok(query(client, own.headers, sql))["rows"] == [[2]]

    url = f"/api/v1/datasets/{dataset['id']}/grants/{made['id']}"
    assert client.delete(url, headers=owner.headers).status_code == 204
    assert answer(query(client, token.headers, sql)) == not_found("salaries")


def test_a_token_of_a_user_who_lost_access_fails(client, actors, owner):
    admin = actors["admin"]
    create_dataset(client, owner.headers, "open")
    viewer, editor = actors["viewer"], actors["other_editor"]
    tokens = {
        key: personal_token(client, actors[key], ["read"]) for key in ("viewer", "other_editor")
    }
    for token in tokens.values():
        assert ok(query(client, token.headers, "SELECT 1"))["rows"] == [[1]]

    demoted = client.patch(f"{USERS}{editor.id}", json={"roles": []}, headers=admin.headers)
    assert demoted.status_code == 200
    response = query(client, tokens["other_editor"].headers, "SELECT 1")
    assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})

    off = client.patch(f"{USERS}{viewer.id}", json={"is_active": False}, headers=admin.headers)
    assert off.status_code == 200
    response = query(client, tokens["viewer"].headers, "SELECT 1")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_a_viewer_queries_and_no_login_is_401(client, viewer):
    assert ok(query(client, viewer.headers, "SELECT 42 AS n"))["rows"] == [[42]]
    response = client.post("/api/v1/query", json={"sql": "SELECT 1"})
    assert (response.status_code, response.get_json()) == (401, {"detail": "Not authenticated"})
    assert response.headers["WWW-Authenticate"] == "Bearer"
    bad = query(client, {"Authorization": "Bearer not-a-token"}, "SELECT 1")
    assert (bad.status_code, bad.get_json()) == (401, {"detail": "Invalid token"})
    empty = client.post("/api/v1/query", json={}, headers={})
    assert empty.status_code == 401  # before the body is looked at


# -- inputs and pins ---------------------------------------------------------------------


@pytest.fixture
def sales(client, owner):
    dataset = create_dataset(client, owner.headers, "Sales")
    assert upload(client, owner.headers, dataset["id"], b"n\n1\n").status_code == 200
    assert upload(client, owner.headers, dataset["id"], b"n\n2\n3\n").status_code == 200
    return dataset


def read(dataset, version, name="Sales"):
    return {"dataset_id": dataset["id"], "name": name, "version": version}


def test_inputs_list_each_version_read_once(client, owner, viewer, sales):
    other = create_dataset(client, owner.headers, "regions")
    assert upload(client, owner.headers, other["id"], b"r\nnorth\n").status_code == 200
    sql = (
        'SELECT count(*) FROM sales a, "SALES" b, "Sales@2" c, "sales@1" d, "SALES@1" e, '
        "regions f, Regions g"
    )
    answered = ok(query(client, viewer.headers, sql))
    assert answered["rows"] == [[8]]  # 2 × 2 × 2 × 1 × 1 × 1 × 1
    key = lambda i: (i["dataset_id"], i["version"])  # noqa: E731
    assert sorted(answered["inputs"], key=key) == sorted(
        [read(sales, 2), read(sales, 1), read(other, 1, "regions")], key=key
    )
    assert answered["pipeline"] is None
    one = ok(query(client, viewer.headers, "SELECT * FROM sales UNION ALL SELECT * FROM SALES"))
    assert one["inputs"] == [read(sales, 2)]


def test_pins_and_at_n_pin_versions(client, viewer, sales):
    current = ok(query(client, viewer.headers, "SELECT n FROM sales ORDER BY n"))
    assert (current["rows"], current["inputs"]) == ([[2], [3]], [read(sales, 2)])
    pins = [{"dataset_id": sales["id"], "version": 1}]
    pinned = ok(query(client, viewer.headers, "SELECT n FROM sales ORDER BY n", pins=pins))
    assert (pinned["rows"], pinned["inputs"]) == ([[1]], [read(sales, 1)])
    at = ok(query(client, viewer.headers, 'SELECT n FROM "Sales@1"'))
    assert (at["rows"], at["inputs"]) == ([[1]], [read(sales, 1)])
    # a table written with @N reads that version, whatever the pins say
    both = ok(query(client, viewer.headers, 'SELECT max(n) FROM "sales@2"', pins=pins))
    assert (both["rows"], both["inputs"]) == ([[3]], [read(sales, 2)])
    unused = [{"dataset_id": sales["id"] + 1000, "version": 1}]
    assert ok(query(client, viewer.headers, "SELECT 1", pins=unused))["inputs"] == []


@pytest.mark.parametrize(
    "sql, pins, detail",
    [
        ('SELECT * FROM "Sales@3"', None, "Version not found: Sales@3"),
        ('SELECT * FROM "sales@9"', None, "Version not found: Sales@9"),
        ("SELECT * FROM sales", 7, "Version not found: Sales@7"),
        ('SELECT * FROM "sales@0"', None, "Version not found: Sales@0"),
        ('SELECT * FROM "sales@x"', None, "Dataset not found: sales@x"),
        ('SELECT * FROM "nothing@1"', None, "Dataset not found: nothing@1"),
    ],
)
def test_a_missing_version(client, viewer, sales, sql, pins, detail):
    body = {"pins": [{"dataset_id": sales["id"], "version": pins}]} if pins else {}
    response = query(client, viewer.headers, sql, **body)
    assert (response.status_code, response.get_json()) == (422, {"detail": detail})


def test_a_dataset_without_a_file(client, owner, viewer):
    create_dataset(client, owner.headers, "Empty One")
    response = query(client, viewer.headers, 'SELECT * FROM "empty one"')
    assert (response.status_code, response.get_json()) == (
        422,
        {"detail": "Dataset has no file: empty one"},
    )
    response = query(client, viewer.headers, 'SELECT * FROM "Empty One@1"')
    assert response.get_json() == {"detail": "Version not found: Empty One@1"}
