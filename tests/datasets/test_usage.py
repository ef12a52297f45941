"""Usage statistics (docs/reference/datasets.rst, "Usage statistics"): views and downloads
counted in memory, written in batches, shown as ``stats`` and as the search index's
``popularity``, and pruned by the worker's sweep."""

from datetime import timedelta

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets import usage
from datahub.datasets.models import DatasetUsage
from datahub.platform.database import utcnow
from datahub.search.models import SearchDocument
from tests.resources import actors, create_dataset, statements, upload  # noqa: F401  (actors: a fixture)

URL = "/api/v1/datasets/"


@pytest.fixture
def config_overrides():
    return {"USAGE_FLUSH_SECONDS": 3600}  # only the tests' own flushes


@pytest.fixture
def editor(actors):
    return actors["editor"].headers


def usage_rows(app):
    """``{(dataset_id, days ago): (views, downloads)}`` as written."""
    today = utcnow().date()
    with app.app_context():
        rows = db.session.scalars(sa.select(DatasetUsage)).all()
        found = {(r.dataset_id, (today - r.day).days): (r.views, r.downloads) for r in rows}
        db.session.rollback()
    return found


def add_usage(app, dataset_id, days_ago, views, downloads):
    with app.app_context():
        day = utcnow().date() - timedelta(days=days_ago)
        db.session.add(
            DatasetUsage(dataset_id=dataset_id, day=day, views=views, downloads=downloads)
        )
        db.session.commit()


def add_search_document(app, dataset, popularity=0):
    """The dataset's search document (written with the dataset) at ``popularity``."""
    with app.app_context():
        document = db.session.scalar(
            sa.select(SearchDocument).where(
                SearchDocument.kind == "dataset", SearchDocument.resource_id == dataset["id"]
            )
        )
        document.popularity = popularity
        db.session.commit()


def popularity(app, dataset):
    with app.app_context():
        found = db.session.scalar(
            sa.select(SearchDocument.popularity).where(
                SearchDocument.kind == "dataset", SearchDocument.resource_id == dataset["id"]
            )
        )
        db.session.rollback()
    return found


def stats(client, headers, dataset):
    return client.get(f"{URL}{dataset['id']}", headers=headers).get_json()["stats"]


def with_file(client, headers, name="data"):
    dataset = create_dataset(client, headers, name)
    assert upload(client, headers, dataset["id"], b"a,b\n1,2\n").status_code == 200
    return dataset


def test_views_and_downloads_are_counted_and_shown_after_a_flush(app, client, editor):
    dataset = with_file(client, editor)
    add_search_document(app, dataset)
    url = f"{URL}{dataset['id']}"
    for _ in range(3):
        assert client.get(url, headers=editor).status_code == 200
    assert client.get(f"{url}/file", headers=editor).status_code == 200
    assert client.get(f"{url}/versions/1/file", headers=editor).status_code == 200
    first_bytes = client.get(f"{url}/file", headers={**editor, "Range": "bytes=0-1"})
    assert first_bytes.status_code == 206
    # Not downloads: the rest of a ranged download, a HEAD, an unchanged file (304).
    later_bytes = client.get(f"{url}/file", headers={**editor, "Range": "bytes=2-3"})
    assert later_bytes.status_code == 206
    assert client.head(f"{url}/file", headers=editor).status_code == 200
    etag = first_bytes.headers["ETag"]
    unchanged = client.get(f"{url}/file", headers={**editor, "If-None-Match": etag})
    assert unchanged.status_code == 304
    assert client.head(url, headers=editor).status_code == 200  # not a view either
    assert stats(client, editor, dataset) == {"downloads_30d": 0, "views_30d": 0}  # 4th view

    assert usage.flush(app) is True
    assert usage_rows(app) == {(dataset["id"], 0): (4, 3)}
    assert stats(client, editor, dataset) == {"downloads_30d": 3, "views_30d": 4}
    assert popularity(app, dataset) == 7
    assert usage.flush(app) is True  # adds to the day's row
    assert stats(client, editor, dataset) == {"downloads_30d": 3, "views_30d": 5}
    assert popularity(app, dataset) == 8


def test_reads_write_nothing_until_the_flush(app, client, editor):
    dataset = with_file(client, editor)
    with statements(app) as sent:
        for _ in range(5):
            assert client.get(f"{URL}{dataset['id']}", headers=editor).status_code == 200
            assert client.get(f"{URL}{dataset['id']}/file", headers=editor).status_code == 200
            assert client.get(URL, headers=editor).status_code == 200
    assert [s for s in sent if not s.lstrip().upper().startswith(("SELECT", "BEGIN"))] == []
    assert usage_rows(app) == {}
    usage.flush(app)
    assert usage_rows(app) == {(dataset["id"], 0): (5, 5)}


def test_a_flush_is_due_every_usage_flush_seconds_once_a_response_is_sent(app, client, editor):
    dataset = create_dataset(client, editor)
    url = f"{URL}{dataset['id']}"
    with client.get(url, headers=editor):
        pass
    assert usage_rows(app) == {}  # not due yet
    app.config["USAGE_FLUSH_SECONDS"] = 0
    with client.get(url, headers=editor) as response:
        assert response.status_code == 200
        assert usage_rows(app) == {}  # written once the response is sent (closed)
    assert usage_rows(app) == {(dataset["id"], 0): (2, 0)}


def test_stats_count_the_last_30_days(app, client, editor):
    dataset = create_dataset(client, editor)
    add_search_document(app, dataset)
    add_usage(app, dataset["id"], 29, views=1, downloads=10)
    add_usage(app, dataset["id"], 30, views=100, downloads=1000)  # out of the window
    assert stats(client, editor, dataset) == {"downloads_30d": 10, "views_30d": 1}
    usage.flush(app)
    assert popularity(app, dataset) == 11 + 1  # the view just flushed


def test_a_deleted_datasets_pending_counts_are_dropped(app, client, editor):
    kept, deleted = create_dataset(client, editor, "kept"), create_dataset(client, editor, "gone")
    for dataset in (kept, deleted):
        assert client.get(f"{URL}{dataset['id']}", headers=editor).status_code == 200
    assert client.delete(f"{URL}{deleted['id']}", headers=editor).status_code == 204
    assert usage.flush(app) is True
    assert usage_rows(app) == {(kept["id"], 0): (1, 0)}
    assert usage.counts_of(app).pending == {}


def test_failed_reads_are_not_counted(app, client, actors, editor):
    private = create_dataset(client, editor, "private", visibility="private")
    without_file = create_dataset(client, editor, "no file")
    other = actors["other_editor"].headers
    assert client.get(f"{URL}{private['id']}", headers=other).status_code == 404
    assert client.get(f"{URL}{private['id']}/file", headers=other).status_code == 404
    assert client.get(f"{URL}{private['id']}", headers=actors["nobody"].headers).status_code == 403
    assert client.get(f"{URL}{private['id']}").status_code == 401
    assert client.get(f"{URL}{without_file['id']}/file", headers=editor).status_code == 404
    assert (
        client.get(f"{URL}{without_file['id']}/versions/1/file", headers=editor).status_code == 404
    )
    assert client.get(f"{URL}999999", headers=editor).status_code == 404
    usage.flush(app)
    assert usage_rows(app) == {}


def test_list_pages_show_stats_read_in_one_query(app, client, editor):
    datasets = [create_dataset(client, editor, f"d{number}") for number in range(5)]
    for number, dataset in enumerate(datasets):
        add_usage(app, dataset["id"], 1, views=number, downloads=2 * number)
    with statements(app) as sent:
        page = client.get(f"{URL}?limit=4", headers=editor).get_json()
    assert [item["stats"] for item in page["items"]] == [
        {"downloads_30d": 2 * number, "views_30d": number} for number in range(4)
    ]
    assert len([s for s in sent if "dataset_usage" in s]) == 1


def test_a_failed_flush_keeps_its_counts_and_writes_nothing(app, client, editor, monkeypatch):
    dataset = create_dataset(client, editor)
    add_search_document(app, dataset)
    assert client.get(f"{URL}{dataset['id']}", headers=editor).status_code == 200

    def fail(*_args):
        raise sa.exc.OperationalError("UPDATE", {}, Exception("database is down"))

    monkeypatch.setattr(usage, "set_popularity", fail)  # after the rows' upsert
    assert usage.flush(app) is False
    assert usage_rows(app) == {}  # the upsert was rolled back
    monkeypatch.undo()
    assert usage.flush(app) is True
    assert usage_rows(app) == {(dataset["id"], 0): (1, 0)}
    assert popularity(app, dataset) == 1


def test_the_sweep_removes_old_days_and_updates_popularity(app, client, editor):
    from datahub.pipelines.worker import Worker

    dataset, other = create_dataset(client, editor, "a"), create_dataset(client, editor, "b")
    add_search_document(app, dataset, popularity=1111)  # as set while all were in the window
    add_usage(app, dataset["id"], 1, views=1, downloads=0)
    add_usage(app, dataset["id"], 30, views=10, downloads=0)  # just left the window
    add_usage(app, dataset["id"], 31, views=100, downloads=0)
    add_usage(app, other["id"], 45, views=1000, downloads=0)
    app.config.update(VERSIONS_PRUNE_SECONDS=0)
    Worker(app).run_once()
    assert usage_rows(app) == {(dataset["id"], 1): (1, 0), (dataset["id"], 30): (10, 0)}
    assert popularity(app, dataset) == 1


def test_the_sweep_goes_on_batch_after_batch(app, client, editor):
    datasets = [create_dataset(client, editor, f"d{number}") for number in range(5)]
    for dataset in datasets:
        add_usage(app, dataset["id"], 40, views=1, downloads=1)
    with app.app_context():
        assert usage.prune_usage(batch=2) == 5
        assert usage.prune_usage(batch=2) == 0
    assert usage_rows(app) == {}


@pytest.mark.parametrize("value", [-1, "soon", None])
def test_usage_flush_seconds_must_be_seconds(base_config, value):
    from datahub import create_app
    from datahub.platform.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="USAGE_FLUSH_SECONDS"):
        create_app({**base_config, "USAGE_FLUSH_SECONDS": value})
