"""Damaged files: a Parquet file mutated hundreds of ways (truncated, bytes flipped in its
footer and metadata, random bytes written over it) previews as 200 or 422 ``Dataset file
is not tabular``, never 500, and as a pipeline's source or joined dataset fails the run
with a message saying the file cannot be read, never the internal error."""

import random

import duckdb
import pytest

from datahub.pipelines.execute import INTERNAL_ERROR
from tests.pipelines.helpers import create_pipeline, run_now
from tests.resources import create_dataset, upload

SEED = 23
READ_ERRORS = (
    "the source file cannot be read as a table: ",
    "the source file: ",
    "the run could not read or write a file: ",
    "the run failed: ",
)


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    """A valid Parquet file of 40 rows: numbers, text, doubles, dates, lists. Not
    compressed: damaged data pages then fail as the rows are read (Thrift's page headers),
    after the footer was read fine."""
    path = tmp_path_factory.mktemp("parquet") / "valid.parquet"
    con = duckdb.connect()
    con.execute(
        f"COPY (SELECT i AS n, 'row ' || i AS s, i / 3 AS d, DATE '2024-01-01' + i::INTEGER AS "
        f"day, [i, i + 1] AS l FROM range(40) t(i)) TO '{path}' (FORMAT parquet, "
        "COMPRESSION uncompressed)"
    )
    con.close()
    return path.read_bytes()


def mutations(data, count):
    """``count`` damaged copies of ``data``, always the same ones (SEED)."""
    rng = random.Random(SEED)
    footer = int.from_bytes(data[-8:-4], "little")  # the metadata's length
    start = len(data) - 8 - footer
    for n in range(count):
        copy = bytearray(data)
        kind = n % 5
        if kind == 0:  # truncated anywhere
            copy = copy[: rng.randrange(4, len(copy))]
        elif kind == 1:  # bits flipped in the footer (the Thrift metadata)
            for _ in range(rng.randrange(1, 4)):
                copy[rng.randrange(start, len(copy) - 4)] ^= 1 << rng.randrange(8)
        elif kind == 2:  # random bytes over part of the metadata
            at = rng.randrange(start, len(copy) - 4)
            copy[at : at + rng.randrange(1, 16)] = rng.randbytes(16)[: len(copy) - 4 - at]
        elif kind == 3:  # random bytes in the data pages
            at = rng.randrange(4, start)
            copy[at : at + 8] = rng.randbytes(8)
        else:  # a wrong metadata length
            copy[-8:-4] = rng.randrange(2**32).to_bytes(4, "little")
        yield bytes(copy)


def test_mutations_differ(parquet):
    variants = list(mutations(parquet, 300))
    assert len(set(variants)) > 250
    assert all(variant.startswith(b"PAR1") for variant in variants)


def test_damaged_parquet_previews_as_422_never_500(client, actors, parquet):
    editor = actors["editor"].headers
    dataset = create_dataset(client, editor, "damaged")
    statuses = {200: 0, 422: 0}
    for n, variant in enumerate(mutations(parquet, 80)):
        assert upload(client, editor, dataset["id"], variant).status_code == 200
        response = client.get(f"/api/v1/datasets/{dataset['id']}/preview", headers=editor)
        assert response.status_code in (200, 422), (n, response.status_code)
        if response.status_code == 422:
            assert response.get_json() == {"detail": "Dataset file is not tabular"}, n
        statuses[response.status_code] += 1
    assert statuses[422] > 40  # most of them are damaged beyond reading


def test_damaged_parquet_fails_the_run_with_a_clear_error(app, client, actors, parquet):
    editor = actors["editor"].headers
    dataset = create_dataset(client, editor, "damaged")
    assert upload(client, editor, dataset["id"], parquet).status_code == 200
    pipeline = create_pipeline(client, editor, dataset["id"], [{"op": "limit", "count": 100}])
    failed = 0
    for n, variant in enumerate(mutations(parquet, 40)):
        assert upload(client, editor, dataset["id"], variant).status_code == 200
        run = run_now(app, client, editor, pipeline["id"])
        if run["status"] == "succeeded":
            continue
        failed += 1
        assert run["status"] == "failed", (n, run)
        assert run["error"] != INTERNAL_ERROR, n
        assert run["error"].startswith(READ_ERRORS), (n, run["error"])
        assert "/" not in run["error"].split(": ", 1)[1], (n, run["error"])  # no server path
    assert failed > 20


def test_a_damaged_joined_dataset_fails_the_run(app, client, actors, parquet):
    editor = actors["editor"].headers
    people = create_dataset(client, editor, "people")
    assert upload(client, editor, people["id"], b"n,name\n1,Ann\n").status_code == 200
    other = create_dataset(client, editor, "other")
    damaged = bytearray(parquet)
    damaged[-30:-10] = b"\xff" * 20  # the end of the metadata
    assert upload(client, editor, other["id"], bytes(damaged)).status_code == 200
    pipeline = create_pipeline(
        client, editor, people["id"], [{"op": "join", "dataset_id": other["id"], "on": ["n"]}]
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "failed"
    assert run["error"].startswith(
        f"step 0 (join): dataset {other['id']}'s file cannot be read: "
    ), run["error"]
