"""``flask --app datahub search reindex``, and the index left alone when
``SEARCH_INDEX_ON_WRITE`` is off."""

import threading
import time

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets import usage
from datahub.datasets.models import DatasetUsage
from datahub.search import documents
from datahub.search.models import SearchDocument
from tests.resources import actors, create_collection, create_dataset  # noqa: F401

URL = "/api/v1/search"


def names(client, headers, q):
    response = client.get(URL, query_string={"q": q}, headers=headers)
    assert response.status_code == 200, response.get_json()
    return sorted(item["name"] for item in response.get_json()["items"])


def test_reindex_rebuilds_every_document_and_drops_orphans(app, client, runner, actors):
    headers = actors["editor"].headers
    ids = [create_dataset(client, headers, f"Harbour {i}", tags=["port"])["id"] for i in range(5)]
    shelf = create_collection(client, headers, "Harbour shelf")["id"]
    with app.app_context():
        db.session.execute(
            sa.delete(SearchDocument).where(
                sa.or_(
                    sa.and_(
                        SearchDocument.kind == "dataset", SearchDocument.resource_id.in_(ids[2:])
                    ),
                    sa.and_(
                        SearchDocument.kind == "collection", SearchDocument.resource_id == shelf
                    ),
                )
            )
        )
        db.session.add(DatasetUsage(dataset_id=ids[3], day=usage.today(), views=5, downloads=1))
        db.session.add(
            SearchDocument(
                kind="dataset",
                resource_id=999999,
                name="Harbour ghost",
                owner_id=actors["editor"].id,
                visibility="internal",
                updated_at=sa.func.now(),
            )
        )
        db.session.commit()
    assert names(client, headers, "harbour") == [
        "Harbour 0",
        "Harbour 1",
        "Harbour ghost",
    ]
    result = runner.invoke(args=["search", "reindex", "--batch-size", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "search: indexed 5 datasets, 1 collections, 0 pipelines"
    assert names(client, headers, "harbour") == [
        *(f"Harbour {i}" for i in range(5)),
        "Harbour shelf",
    ]
    assert len(names(client, headers, "port")) == 5
    popular = client.get(URL, query_string={"q": "harbour", "sort": "popular"}, headers=headers)
    assert popular.get_json()["items"][0]["name"] == "Harbour 3"  # its usage ranks it again


@pytest.mark.parametrize("config_overrides", [{"SEARCH_INDEX_ON_WRITE": False}])
def test_with_indexing_off_changes_wait_for_a_reindex(client, runner, actors):
    headers = actors["editor"].headers
    create_dataset(client, headers, "Lighthouse log")
    assert names(client, headers, "lighthouse") == []
    assert runner.invoke(args=["search", "reindex"]).exit_code == 0
    assert names(client, headers, "lighthouse") == ["Lighthouse log"]


@pytest.mark.parametrize("config_overrides", [{"SEARCH_INDEX_ON_WRITE": False}])
def test_a_failed_batch_fails_the_reindex_and_keeps_the_batches_written(
    client, runner, actors, monkeypatch
):
    """Two batches at a time on PostgreSQL, one on SQLite: either way a batch that fails
    fails the command, and what earlier batches wrote stays (each its own transaction)."""
    headers = actors["editor"].headers
    ids = [create_dataset(client, headers, f"Beacon {i}")["id"] for i in range(4)]
    write_batch = documents._index_batch

    def failing(kind, model, batch):
        if kind == "dataset" and batch[0] >= ids[2]:  # the fourth dataset's batch on
            raise RuntimeError("the database went away")
        return write_batch(kind, model, batch)

    monkeypatch.setattr(documents, "_index_batch", failing)
    result = runner.invoke(args=["search", "reindex", "--batch-size", "1", "--workers", "3"])
    assert result.exit_code != 0
    assert str(result.exception) == "the database went away"
    assert names(client, headers, "beacon") == ["Beacon 0", "Beacon 1", "Beacon 2"]


def test_the_first_failed_batch_stops_the_batches_not_begun():
    """Two at once: batch 0 fails while batch 1 runs; the thread freed by 0 may begin 2,
    and no later batch begins."""
    begun, one_runs = [], threading.Event()

    def batch(number):
        begun.append(number)
        if number == 0:
            one_runs.wait(5)
            raise RuntimeError("batch 0 failed")
        if number == 1:
            one_runs.set()
        time.sleep(0.5)
        return number

    done = []
    with pytest.raises(RuntimeError, match="batch 0 failed"):
        documents._in_threads(2, batch, range(10), done.append)
    assert set(begun) <= {0, 1, 2} and {0, 1} <= set(begun)
    assert done == []  # 1 and 2 end after the failure is raised
