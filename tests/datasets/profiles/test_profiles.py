"""A version's schema and profile (GET .../versions/{v}/schema, /profile,
/datapackage.json), read once per content by a pipeline worker, and the drift in diffs."""

import datetime

import frictionless
import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.profiles import profiler
from datahub.datasets.profiles.models import ContentProfile
from tests.resources import actors, create_dataset, upload  # noqa: F401  (fixture)

URL = "/api/v1/datasets/"
CITIES = (
    b"city,temp,day,wet\nOslo,3,2024-01-01,true\nBergen,,2024-01-02,false\nOslo,5,2024-01-03,\n"
)


@pytest.fixture
def config_overrides(tmp_path):
    return {"STORAGE_PATH": str(tmp_path / "storage")}


@pytest.fixture
def editor(actors):  # noqa: F811
    return actors["editor"]


def with_file(client, editor, content, name="Cities", **fields):
    dataset = create_dataset(client, editor.headers, name, **fields)
    response = upload(client, editor.headers, dataset["id"], content)
    assert response.status_code == 200, response.get_json()
    return dataset


def version_url(dataset, version=1, part="schema"):
    return f"{URL}{dataset['id']}/versions/{version}/{part}"


def profile_pending(app):
    return profiler.profile_pending(app, limit=100)


def contents(app):
    with app.app_context():
        return {
            (row.sha256[:8], row.status)
            for row in db.session.scalars(sa.select(ContentProfile)).all()
        }


def test_a_versions_schema_is_pending_until_a_worker_reads_it(app, client, editor):
    dataset = with_file(client, editor, CITIES)
    pending = client.get(version_url(dataset), headers=editor.headers)
    assert pending.status_code == 202
    assert pending.get_json() == {"status": "pending"}
    assert pending.headers["Retry-After"] == "1"
    assert (
        client.get(version_url(dataset, part="profile"), headers=editor.headers).status_code == 202
    )
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["schema"] is None

    assert profile_pending(app) == 1
    schema = {
        "columns": [
            {"name": "city", "type": "VARCHAR", "nullable": False},
            {"name": "temp", "type": "BIGINT", "nullable": True},
            {"name": "day", "type": "DATE", "nullable": False},
            {"name": "wet", "type": "BOOLEAN", "nullable": True},
        ],
        "rows": 3,
    }
    ready = client.get(version_url(dataset), headers=editor.headers)
    assert ready.status_code == 200
    assert ready.get_json() == schema
    assert (
        client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["schema"] == schema
    )
    listed = client.get(f"{URL}?name=Cities", headers=editor.headers).get_json()["items"]
    assert [item["schema"] for item in listed] == [schema]
    assert profile_pending(app) == 0  # read once


def test_a_profile_per_column(app, client, editor):
    dataset = with_file(client, editor, CITIES)
    profile_pending(app)
    response = client.get(version_url(dataset, part="profile"), headers=editor.headers)
    assert response.status_code == 200
    profile = response.get_json()
    assert profile["status"] == "ready"
    assert profile["rows"] == 3
    assert profile["partial"] is False
    assert datetime.datetime.fromisoformat(profile["computed_at"]).tzinfo is not None
    columns = {column["name"]: column for column in profile["columns"]}
    assert list(columns) == ["city", "temp", "day", "wet"]
    city, temp = columns["city"], columns["temp"]
    assert (city["count"], city["nulls"], city["null_fraction"]) == (3, 0, 0.0)
    assert city["top_values"] == [{"value": "Oslo", "count": 2}, {"value": "Bergen", "count": 1}]
    assert city["length"] == {"min": 4, "max": 6, "mean": pytest.approx(14 / 3)}
    assert city["histogram"] is None and city["mean"] is None
    assert (temp["count"], temp["nulls"]) == (2, 1)
    assert temp["null_fraction"] == pytest.approx(1 / 3)
    assert (temp["min"], temp["max"], temp["mean"]) == (3, 5, 4.0)
    assert sum(bin_["count"] for bin_ in temp["histogram"]) == 2
    assert len(temp["histogram"]) <= 20
    assert temp["length"] is None
    assert columns["day"]["min"] == "2024-01-01" and columns["day"]["max"] == "2024-01-03"


def test_identical_bytes_are_read_once(app, client, editor):
    first = with_file(client, editor, CITIES, "First")
    second = with_file(client, editor, CITIES, "Second")
    assert len(contents(app)) == 1
    assert profile_pending(app) == 1
    for dataset in (first, second):
        assert client.get(version_url(dataset), headers=editor.headers).status_code == 200
    restored = client.post(f"{URL}{first['id']}/versions/1/restore", headers=editor.headers)
    assert restored.status_code == 201
    assert client.get(version_url(first, 2), headers=editor.headers).status_code == 200
    assert profile_pending(app) == 0


def test_a_file_that_is_not_a_table_has_no_schema(app, client, editor):
    dataset = with_file(client, editor, b"\x89PNG\r\n\x1a\n\x00\x00binary")
    assert contents(app) == set()  # nothing to read
    for part in ("schema", "datapackage.json"):
        response = client.get(version_url(dataset, part=part), headers=editor.headers)
        assert response.status_code == 404
        assert response.get_json() == {"detail": "Version has no schema"}
    profile = client.get(version_url(dataset, part="profile"), headers=editor.headers)
    assert profile.status_code == 200
    assert profile.get_json() == {
        "status": "failed",
        "error": "The file is not a table (CSV, Parquet or JSON lines)",
    }
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["schema"] is None


def test_a_file_that_cannot_be_read_as_a_table_fails_with_why(app, client, editor):
    dataset = with_file(client, editor, b'a,b\n1,2\n3,4,5,6,7\n"never closed\n')
    assert profile_pending(app) == 1
    profile = client.get(version_url(dataset, part="profile"), headers=editor.headers).get_json()
    assert profile["status"] == "failed"
    assert profile["error"].startswith("The file cannot be read as a table: ")
    assert client.get(version_url(dataset), headers=editor.headers).status_code == 404


def test_a_profile_that_takes_too_long_fails(app, client, editor):
    app.config["PROFILE_TIMEOUT_SECONDS"] = 0
    dataset = with_file(client, editor, CITIES)
    assert profile_pending(app) == 1
    assert client.get(version_url(dataset, part="profile"), headers=editor.headers).get_json() == {
        "status": "failed",
        "error": "Profiling took longer than PROFILE_TIMEOUT_SECONDS",
    }


def test_a_content_held_by_a_killed_worker_is_read_again_later(app, client, editor):
    dataset = with_file(client, editor, CITIES)
    with app.app_context():
        assert profiler.claim(app.config) is not None  # a worker took it, then was killed
    assert profile_pending(app) == 0  # held until its claim runs out
    assert client.get(version_url(dataset), headers=editor.headers).status_code == 202
    with app.app_context():
        db.session.execute(
            sa.update(ContentProfile).values(
                claimed_until=datetime.datetime.now(datetime.timezone.utc)
                - datetime.timedelta(seconds=1)
            )
        )
        db.session.commit()
    assert profile_pending(app) == 1
    assert client.get(version_url(dataset), headers=editor.headers).status_code == 200


def test_a_content_that_kills_every_worker_is_given_up(app, client, editor):
    dataset = with_file(client, editor, CITIES)
    with app.app_context():
        db.session.execute(sa.update(ContentProfile).values(attempts=profiler.MAX_ATTEMPTS))
        db.session.commit()
    assert profile_pending(app) == 1
    assert client.get(version_url(dataset, part="profile"), headers=editor.headers).get_json() == {
        "status": "failed",
        "error": "Profiling was interrupted 3 times",
    }


def test_a_content_whose_versions_are_gone_is_forgotten(app, client, editor):
    dataset = with_file(client, editor, CITIES)
    assert client.delete(f"{URL}{dataset['id']}", headers=editor.headers).status_code == 204
    assert profile_pending(app) == 0
    assert contents(app) == set()


def test_only_readers_see_a_versions_schema_and_profile(app, client, actors):  # noqa: F811
    owner, other = actors["editor"], actors["other_editor"]
    dataset = with_file(client, owner, CITIES, visibility="private")
    profile_pending(app)
    for part in ("schema", "profile", "datapackage.json"):
        assert client.get(version_url(dataset, part=part), headers=owner.headers).status_code == 200
        refused = client.get(version_url(dataset, part=part), headers=other.headers)
        assert refused.status_code == 404
        assert refused.get_json() == {"detail": "Dataset not found"}
    missing = client.get(version_url(dataset, 9), headers=owner.headers)
    assert (missing.status_code, missing.get_json()) == (404, {"detail": "Version not found"})


def test_a_data_package_that_frictionless_accepts(app, client, editor, tmp_path):
    dataset = with_file(
        client, editor, CITIES, "Rain in Norway", description="Daily", tags=["weather"]
    )
    assert (
        client.get(
            version_url(dataset, part="datapackage.json"), headers=editor.headers
        ).status_code
        == 202
    )
    profile_pending(app)
    response = client.get(version_url(dataset, part="datapackage.json"), headers=editor.headers)
    assert response.status_code == 200
    package = response.get_json()
    resource = package["resources"][0]
    assert package["name"] == "rain-in-norway"
    assert (package["title"], package["description"], package["keywords"]) == (
        "Rain in Norway",
        "Daily",
        ["weather"],
    )
    assert resource["path"] == f"http://localhost/api/v1/datasets/{dataset['id']}/versions/1/file"
    assert resource["schema"]["fields"] == [
        {"name": "city", "type": "string", "constraints": {"required": True}},
        {"name": "temp", "type": "integer"},
        {"name": "day", "type": "date", "format": "any", "constraints": {"required": True}},
        {"name": "wet", "type": "boolean"},
    ]
    assert frictionless.Package.validate_descriptor(package).valid
    # The data against it, the file downloaded beside the descriptor.
    (tmp_path / "cities.csv").write_bytes(client.get(resource["path"], headers=editor.headers).data)
    resource["path"] = "cities.csv"
    report = frictionless.validate(package, basepath=str(tmp_path))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])
    resource["schema"]["fields"][1]["type"] = "date"  # and a package that does not fit fails
    assert not frictionless.validate(package, basepath=str(tmp_path)).valid


def test_the_diff_shows_drift_once_both_versions_are_profiled(app, client, editor):
    dataset = with_file(client, editor, CITIES)
    changed = b"city,temp,day,wet\nTromso,,2024-02-01,true\nOslo,,2024-02-02,true\n"
    assert upload(client, editor.headers, dataset["id"], changed).status_code == 200
    diff_url = f"{URL}{dataset['id']}/diff?from=1&to=2"
    assert client.get(diff_url, headers=editor.headers).get_json()["profile"] is None
    profile_pending(app)
    drift = {
        column["name"]: column
        for column in client.get(diff_url, headers=editor.headers).get_json()["profile"]
    }
    assert list(drift) == ["city", "temp", "day", "wet"]
    assert drift["temp"]["null_fraction"] == {"from": pytest.approx(1 / 3), "to": 1.0}
    assert drift["temp"]["mean"] == {"from": 4.0, "to": None}
    assert drift["city"]["new_values"] == ["Tromso"]
    assert drift["city"]["missing_values"] == ["Bergen"]
    assert drift["city"]["distinct"]["from"] == 2


def test_versions_from_before_profiles_are_backfilled_after_new_ones(app, client, editor):
    old = with_file(client, editor, CITIES, "Old")
    new = with_file(client, editor, b"a\n1\n", "New")
    with app.app_context():
        db.session.execute(
            sa.update(ContentProfile)
            .where(ContentProfile.size_bytes == len(CITIES))
            .values(backfill=True)
        )
        db.session.commit()
    assert profiler.profile_pending(app, limit=1) == 1
    assert client.get(version_url(new), headers=editor.headers).status_code == 200
    assert client.get(version_url(old), headers=editor.headers).status_code == 202
    assert profiler.profile_pending(app, limit=1) == 1
    assert client.get(version_url(old), headers=editor.headers).status_code == 200
