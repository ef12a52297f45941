"""sort and dedupe beyond PIPELINE_SORT_MEMORY_ROWS: spilled to temporary files, merged,
and still exactly right; no temporary file is left behind."""
import csv
import io
import random

import pytest

from datahub.pipelines import engine
from tests.pipelines.helpers import create_pipeline, output_rows, run_now, source

ROWS = 10_000


@pytest.fixture
def config_overrides(tmp_path):
    (tmp_path / "spill").mkdir()
    return {"PIPELINE_SORT_MEMORY_ROWS": 100, "PIPELINE_TEMP_DIR": str(tmp_path / "spill")}


@pytest.fixture
def spills(monkeypatch):
    """Count the sorted runs written to disk."""
    written = []
    original = engine.Spiller.write

    def write(self, rows):
        path = original(self, rows)
        written.append(path)
        return path

    monkeypatch.setattr(engine.Spiller, "write", write)
    return written


def big_csv(seed=7):
    rng = random.Random(seed)
    rows = [[str(i), str(rng.randint(-500, 500)), rng.choice("abcdefghij") * rng.randint(1, 3)]
            for i in range(ROWS)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["id", "score", "word"])
    writer.writerows(rows)
    return rows, out.getvalue()


@pytest.mark.parametrize("descending", [False, True])
def test_sort_larger_than_memory(app, client, actors, spills, tmp_path, descending):
    rows, text = big_csv()
    editor = actors["editor"].headers
    steps = [{"op": "sort", "columns": ["score", "word"], "descending": descending}]
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert (run["rows_in"], run["rows_out"]) == (ROWS, ROWS)
    expected = sorted(rows, key=lambda r: (int(r[1]), r[2]), reverse=descending)
    got = output_rows(client, editor, run)[1:]
    # Same order of keys; the sort is stable, so ties keep the input order too.
    assert got == expected
    assert len(spills) >= ROWS // 100 + ROWS // 100 // engine.MERGE_FAN_IN
    assert list((tmp_path / "spill").iterdir()) == []


def test_dedupe_larger_than_memory_keeps_first_occurrences_in_order(app, client, actors,
                                                                    spills, tmp_path):
    rows, text = big_csv()
    editor = actors["editor"].headers
    steps = [{"op": "dedupe", "columns": ["score", "word"]}]
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    seen, expected = set(), []
    for row in rows:
        if (row[1], row[2]) not in seen:
            seen.add((row[1], row[2]))
            expected.append(row)
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run)[1:] == expected
    assert run["rows_out"] == len(expected) < ROWS
    assert spills
    assert list((tmp_path / "spill").iterdir()) == []


def test_numbers_sort_before_text_and_numerically():
    key = engine.sort_key([0])
    rows = [["10"], ["b"], ["9"], ["-1.5"], ["a"], ["1e3"], [""]]
    assert [r[0] for r in sorted(rows, key=key)] == ["-1.5", "9", "10", "1e3", "", "a", "b"]
    assert engine.number("nan") is None and engine.number("inf") is None


def test_external_sort_cleans_up_when_stopped(tmp_path):
    def rows():
        for i in range(1000):
            yield [str(1000 - i)]

    calls = []

    def check():
        calls.append(1)
        if len(calls) > 3:
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        list(engine.external_sort(rows(), engine.sort_key([0]), 10, temp_dir=str(tmp_path),
                                  check=check))
    assert list(tmp_path.iterdir()) == []
