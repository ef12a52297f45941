"""A dataset's checks (GET/PUT /datasets/{id}/checks) and write, audit, publish: a version
made while its dataset has checks is pending until a worker has run them, then published
or quarantined; only a published version is current, says it was created and triggers."""

import datetime

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.checks import auditor
from datahub.datasets.checks.models import VersionAudit
from datahub.events.models import Event
from tests.resources import actors, create_dataset, upload, validation_error  # noqa: F401

URL = "/api/v1/datasets/"
GOOD = b"id,city,amount,day\n1,Oslo,10,2026-11-27\n2,Bergen,20,2026-11-28\n3,Oslo,30,2026-11-28\n"
BAD = b"id,city,amount,day\n1,Oslo,10,2026-11-27\n1,Paris,,2026-11-28\n"
CHECKS = [
    {"name": "ids", "type": "unique", "columns": ["id"]},
    {"name": "amounts", "type": "not_null", "column": "amount"},
    {
        "name": "cities",
        "type": "accepted_values",
        "column": "city",
        "values": ["Oslo", "Bergen"],
        "severity": "warn",
    },
]


@pytest.fixture
def config_overrides(tmp_path):
    return {"STORAGE_PATH": str(tmp_path / "storage")}


@pytest.fixture
def editor(actors):  # noqa: F811
    return actors["editor"]


def set_checks(client, headers, dataset, checks):
    return client.put(f"{URL}{dataset['id']}/checks", json={"checks": checks}, headers=headers)


def with_checks(client, editor, checks=CHECKS, name="Sales"):
    dataset = create_dataset(client, editor.headers, name)
    response = set_checks(client, editor.headers, dataset, checks)
    assert response.status_code == 200, response.get_json()
    return dataset


def put(client, editor, dataset, content):
    response = upload(client, editor.headers, dataset["id"], content)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def version(client, headers, dataset, number):
    return client.get(f"{URL}{dataset['id']}/versions/{number}", headers=headers).get_json()


def results(client, headers, dataset, number):
    return client.get(f"{URL}{dataset['id']}/versions/{number}/checks", headers=headers).get_json()


def events(app, type_):
    with app.app_context():
        return db.session.scalars(sa.select(Event).where(Event.type == type_)).all()


def test_checks_are_set_whole_and_read_by_readers(client, actors):  # noqa: F811
    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "Sales")
    assert client.get(f"{URL}{dataset['id']}/checks", headers=viewer.headers).get_json() == {
        "checks": []
    }
    saved = set_checks(client, editor.headers, dataset, CHECKS)
    assert saved.status_code == 200
    expected = [{**check, "severity": check.get("severity", "error")} for check in CHECKS]
    assert saved.get_json() == {"checks": expected}
    assert client.get(f"{URL}{dataset['id']}/checks", headers=viewer.headers).get_json() == {
        "checks": expected
    }
    refused = set_checks(client, viewer.headers, dataset, [])
    assert (refused.status_code, refused.get_json()) == (403, {"detail": "Forbidden"})
    assert set_checks(client, editor.headers, dataset, []).get_json() == {"checks": []}


@pytest.mark.parametrize(
    "check, loc, msg",
    [
        (
            {"name": "x", "type": "nope"},
            ["type"],
            "value is not a valid enumeration member; permitted: ",
        ),
        ({"name": "x", "type": "not_null"}, ["column"], "field required"),
        (
            {"name": "x", "type": "range", "column": "a"},
            ["min"],
            "give min or max",
        ),  # value_error.bounds
        (
            {"name": "x", "type": "accepted_values", "column": "a", "values": ["a", "0" * 101]},
            ["values", 1],
            "ensure this value has at most 100 characters",
        ),
        (
            {"name": "x", "type": "range", "column": "a", "max": "0" * 101},
            ["max"],
            "ensure this value has at most 100 characters",
        ),
        (
            {"name": "x", "type": "regex", "column": "a", "pattern": "("},
            ["pattern"],
            "not a regular expression",
        ),
        (
            {"name": "x", "type": "freshness", "column": "a", "max_age": "1 day"},
            ["max_age"],
            "an ISO 8601 duration",
        ),
        (
            {"name": "x", "type": "sql", "query": "DROP TABLE input"},
            ["query"],
            "the query must be a single SELECT",
        ),
        (
            {"name": "x", "type": "unique", "columns": []},
            ["columns"],
            "ensure this value has at least 1",
        ),
        (
            {"name": "x", "type": "not_null", "column": "a", "severity": "fatal"},
            ["severity"],
            "value is not a valid enumeration member",
        ),
        (
            {"name": "x", "type": "row_count", "min": -1},
            ["min"],
            "ensure this value is greater than or equal to 0",
        ),
    ],
)
def test_an_invalid_check_is_a_422_at_its_field(client, editor, check, loc, msg):
    dataset = create_dataset(client, editor.headers, "Sales")
    response = set_checks(
        client, editor.headers, dataset, [{"name": "ok", "type": "row_count", "min": 1}, check]
    )
    assert response.status_code == 422, response.get_json()
    [problem] = response.get_json()["detail"]
    assert problem["loc"] == ["body", "checks", 1, *loc]
    assert problem["msg"].startswith(msg), problem
    assert client.get(f"{URL}{dataset['id']}/checks", headers=editor.headers).get_json() == {
        "checks": []
    }


def test_check_names_are_unique(client, editor):
    dataset = create_dataset(client, editor.headers, "Sales")
    twice = [{"name": "a", "type": "row_count", "min": 1}] * 2
    response = set_checks(client, editor.headers, dataset, twice)
    assert response.status_code == 422
    assert response.get_json()["detail"] == [
        validation_error(
            ["body", "checks", 1, "name"], "names must be unique", "value_error.unique"
        )
    ]


def test_a_dataset_without_checks_publishes_at_once(app, client, editor):
    dataset = create_dataset(client, editor.headers, "Plain")
    assert put(client, editor, dataset, GOOD)["current_version"] == 1
    assert version(client, editor.headers, dataset, 1)["state"] == "published"
    assert results(client, editor.headers, dataset, 1) == {
        "state": "published",
        "checked_at": None,
        "published_by": None,
        "results": [],
    }
    assert len(events(app, "datahub.dataset.version.created")) == 1


def test_a_version_is_pending_then_published(app, client, editor):
    dataset = with_checks(client, editor)
    body = put(client, editor, dataset, GOOD)
    assert body["current_version"] is None  # not current while its checks run
    assert version(client, editor.headers, dataset, 1)["state"] == "pending"
    assert results(client, editor.headers, dataset, 1)["results"] == []
    assert events(app, "datahub.dataset.version.created") == []
    assert auditor.audit_pending(app) == 1
    assert version(client, editor.headers, dataset, 1)["state"] == "published"
    assert (
        client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["current_version"]
        == 1
    )
    checked = results(client, editor.headers, dataset, 1)
    assert checked["state"] == "published"
    assert [(r["name"], r["status"], r["failing_rows"]) for r in checked["results"]] == [
        ("ids", "passed", 0),
        ("amounts", "passed", 0),
        ("cities", "passed", 0),
    ]
    assert len(events(app, "datahub.dataset.version.created")) == 1


def test_a_version_that_fails_is_quarantined_with_its_failing_rows(app, client, editor):
    dataset = with_checks(client, editor)
    put(client, editor, dataset, GOOD)
    auditor.audit_pending(app)
    put(client, editor, dataset, BAD)
    assert auditor.audit_pending(app) == 1
    assert version(client, editor.headers, dataset, 2)["state"] == "quarantined"
    current = client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()
    assert current["current_version"] == 1  # downstream never sees version 2
    download = client.get(f"{URL}{dataset['id']}/file", headers=editor.headers)
    assert download.data == GOOD
    found = {r["name"]: r for r in results(client, editor.headers, dataset, 2)["results"]}
    assert found["ids"]["status"] == "failed"
    assert (found["ids"]["failing_rows"], found["ids"]["sample"]) == (2, [[1, 2]])
    assert found["amounts"]["status"] == "failed"
    assert found["amounts"]["sample"] == [[1, "Paris", None, "2026-11-28"]]
    assert (found["cities"]["status"], found["cities"]["failing_rows"]) == ("warned", 1)
    [quarantined] = events(app, "datahub.dataset.version.quarantined")
    assert quarantined.data["failed_checks"] == ["ids", "amounts"]
    assert len(events(app, "datahub.dataset.version.created")) == 1
    # It stays inspectable: its file, its preview.
    old = client.get(f"{URL}{dataset['id']}/versions/2/file", headers=editor.headers)
    assert old.data == BAD


def test_a_warning_alone_publishes(app, client, editor):
    dataset = with_checks(client, editor, [CHECKS[2]])
    put(client, editor, dataset, b"id,city\n1,Paris\n")
    auditor.audit_pending(app)
    assert version(client, editor.headers, dataset, 1)["state"] == "published"
    [result] = results(client, editor.headers, dataset, 1)["results"]
    assert (result["status"], result["sample"]) == ("warned", [[1, "Paris"]])


def test_a_manager_publishes_a_quarantined_version_anyway(app, client, actors, caplog):  # noqa: F811
    editor, other = actors["editor"], actors["other_editor"]
    dataset = with_checks(client, editor)
    put(client, editor, dataset, BAD)
    auditor.audit_pending(app)
    url = f"{URL}{dataset['id']}/versions/1/publish"
    refused = client.post(url, headers=other.headers)  # may read it, not manage it
    assert (refused.status_code, refused.get_json()) == (403, {"detail": "Forbidden"})
    published = client.post(url, headers=editor.headers)
    assert published.status_code == 200, published.get_json()
    assert published.get_json()["state"] == "published"
    assert (
        client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["current_version"]
        == 1
    )
    assert results(client, editor.headers, dataset, 1)["published_by"] == editor.id
    assert any('"event": "version_published_anyway"' in r.getMessage() for r in caplog.records)
    again = client.post(url, headers=editor.headers)
    assert (again.status_code, again.get_json()) == (409, {"detail": "Version is not quarantined"})


def test_an_error_check_that_cannot_run_quarantines(app, client, editor):
    dataset = with_checks(client, editor, [{"name": "gone", "type": "not_null", "column": "nope"}])
    put(client, editor, dataset, GOOD)
    auditor.audit_pending(app)
    [result] = results(client, editor.headers, dataset, 1)["results"]
    assert (result["status"], result["message"]) == ("error", "Column not found: nope")
    assert version(client, editor.headers, dataset, 1)["state"] == "quarantined"


def test_each_type_of_check(app, client, editor):
    now = datetime.datetime.now(datetime.timezone.utc).date()
    content = (
        "id,city,amount,day\n"
        f"1,Oslo,10,{now}\n2,Bergen,250,{now}\n3,oslo,30,{now - datetime.timedelta(days=9)}\n"
    ).encode()
    checks = [
        {"name": "range", "type": "range", "column": "amount", "min": 0, "max": 100},
        {"name": "regex", "type": "regex", "column": "city", "pattern": "[A-Z][a-z]+"},
        {"name": "rows", "type": "row_count", "min": 5},
        {
            "name": "schema",
            "type": "schema",
            "columns": [{"name": "id", "type": "BIGINT"}, {"name": "zip"}],
        },
        {"name": "fresh", "type": "freshness", "column": "day", "max_age": "P2D"},
        {"name": "sql", "type": "sql", "query": "SELECT * FROM input WHERE amount > 200"},
        {"name": "dates", "type": "range", "column": "day", "min": "2000-01-01"},
        {"name": "change", "type": "row_count_change", "max_drop_fraction": 0.1},
    ]
    dataset = with_checks(client, editor, checks)
    put(client, editor, dataset, content)
    auditor.audit_pending(app)
    found = {r["name"]: r for r in results(client, editor.headers, dataset, 1)["results"]}
    assert {name: r["status"] for name, r in found.items()} == {
        "range": "failed",
        "regex": "failed",
        "rows": "failed",
        "schema": "failed",
        "fresh": "passed",
        "sql": "failed",
        "dates": "passed",
        "change": "passed",
    }
    assert found["range"]["sample"] == [[2, "Bergen", 250, str(now)]]
    assert found["regex"]["failing_rows"] == 1
    assert found["rows"]["message"] == "3 rows; at least 5 expected"
    assert found["schema"]["message"] == "missing column zip"
    assert found["sql"]["failing_rows"] == 1
    assert found["change"]["message"] == "No previous published version to compare with"


def test_row_count_change_against_the_previous_published_version(app, client, editor):
    dataset = with_checks(
        client, editor, [{"name": "drop", "type": "row_count_change", "max_drop_fraction": 0.5}]
    )
    put(client, editor, dataset, GOOD)  # 3 rows
    auditor.audit_pending(app)
    put(client, editor, dataset, b"id,city,amount,day\n1,Oslo,1,2026-01-01\n")  # 1 row: -67%
    auditor.audit_pending(app)
    [result] = results(client, editor.headers, dataset, 2)["results"]
    assert result["status"] == "failed"
    assert result["message"] == "3 → 1 rows: fell by 66.7%, at most 50.0%"


def test_a_file_that_is_not_a_table_fails_every_check(app, client, editor):
    dataset = with_checks(client, editor)
    put(client, editor, dataset, b"\x00\x01 binary")
    auditor.audit_pending(app)
    assert version(client, editor.headers, dataset, 1)["state"] == "quarantined"
    statuses = {r["status"] for r in results(client, editor.headers, dataset, 1)["results"]}
    assert statuses == {"error"}


def test_a_restore_is_checked_too(app, client, editor):
    dataset = with_checks(client, editor)
    put(client, editor, dataset, GOOD)
    auditor.audit_pending(app)
    restored = client.post(f"{URL}{dataset['id']}/versions/1/restore", headers=editor.headers)
    assert restored.status_code == 201
    assert restored.get_json()["state"] == "pending"
    assert auditor.audit_pending(app) == 1
    assert version(client, editor.headers, dataset, 2)["state"] == "published"


def test_a_worker_killed_mid_check_leaves_it_pending_until_another_runs_it(app, client, editor):
    dataset = with_checks(client, editor)
    put(client, editor, dataset, BAD)
    with app.app_context():
        assert auditor.claim(app.config) is not None  # then the worker is killed
    assert auditor.audit_pending(app) == 0  # held
    assert version(client, editor.headers, dataset, 1)["state"] == "pending"
    with app.app_context():
        past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=1)
        db.session.execute(sa.update(VersionAudit).values(claimed_until=past))
        db.session.commit()
    assert auditor.audit_pending(app) == 1
    assert version(client, editor.headers, dataset, 1)["state"] == "quarantined"  # never unchecked


def test_checks_that_kill_every_worker_quarantine(app, client, editor):
    dataset = with_checks(client, editor)
    put(client, editor, dataset, GOOD)
    with app.app_context():
        db.session.execute(sa.update(VersionAudit).values(attempts=auditor.MAX_ATTEMPTS))
        db.session.commit()
    auditor.audit_pending(app)
    assert version(client, editor.headers, dataset, 1)["state"] == "quarantined"
    messages = {r["message"] for r in results(client, editor.headers, dataset, 1)["results"]}
    assert messages == {"Checking was interrupted 3 times"}


def test_checks_too_slow_are_errors(app, client, editor):
    app.config["CHECKS_TIMEOUT_SECONDS"] = 0
    dataset = with_checks(client, editor)
    put(client, editor, dataset, GOOD)
    auditor.audit_pending(app)
    assert version(client, editor.headers, dataset, 1)["state"] == "quarantined"
    messages = {r["message"] for r in results(client, editor.headers, dataset, 1)["results"]}
    assert messages == {"Checking took longer than CHECKS_TIMEOUT_SECONDS"}


def test_retention_keeps_pending_versions(app, client, editor):
    from datahub.datasets.versions import prune_versions

    dataset = with_checks(client, editor)
    put(client, editor, dataset, GOOD)
    auditor.audit_pending(app)
    put(client, editor, dataset, BAD)
    put(client, editor, dataset, GOOD + b"4,Oslo,5,2026-11-28\n")
    with app.app_context():
        assert prune_versions(1) == 0  # 2 and 3 are pending; 1 is current
    auditor.audit_pending(app)
    with app.app_context():
        assert prune_versions(1) == 2
