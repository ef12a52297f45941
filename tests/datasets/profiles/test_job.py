"""The profile job (datahub.datasets.profiles.job) on files of each format, called directly."""

import json
import math

import duckdb
import pytest

from datahub.datasets.profiles import job
from datahub.platform.isolation import JobError

CITIES = (
    "id,temp,city,day,wet,empty\n"
    "1,3.5,Oslo,2024-01-01,true,\n"
    "2,,Bergen,2024-01-02,false,\n"
    "3,5.5,Oslo,2024-01-03,,\n"
    "4,1.0,Oslo,2024-01-10,true,\n"
    "5,2.0,,,true,\n"
)


def profiled(path, **overrides):
    args = {
        "path": str(path),
        "name": "cities.csv",
        "memory_limit": "512MB",
        "threads": 2,
        "temp_dir": None,
        "max_line_size": 2**20,
        "max_columns": 100,
        **overrides,
    }
    found = job.profile_job(args)
    json.dumps(found, allow_nan=False)  # JSON as it is
    return found


def written(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def copied(tmp_path, sql, fmt="parquet"):
    """The rows of ``sql`` written by DuckDB as ``fmt`` (parquet, or json: JSON lines)."""
    path = tmp_path / f"made.{fmt}"
    con = duckdb.connect()
    con.execute(f"COPY ({sql}) TO '{path}' (FORMAT {fmt})")
    con.close()
    return path


def columns(found):
    return {column["name"]: column for column in found["profile"]["columns"]}


def test_a_csv_files_schema(tmp_path):
    found = profiled(written(tmp_path, CITIES))
    assert found["schema"] == {
        "columns": [
            {"name": "id", "type": "BIGINT", "nullable": False},
            {"name": "temp", "type": "DOUBLE", "nullable": True},
            {"name": "city", "type": "VARCHAR", "nullable": True},
            {"name": "day", "type": "DATE", "nullable": True},
            {"name": "wet", "type": "BOOLEAN", "nullable": True},
            {"name": "empty", "type": "VARCHAR", "nullable": True},
        ],
        "rows": 5,
    }
    assert found["profile"]["rows"] == 5
    assert found["profile"]["partial"] is False


def test_an_integer_column(tmp_path):
    assert columns(profiled(written(tmp_path, CITIES)))["id"] == {
        "name": "id",
        "type": "BIGINT",
        "count": 5,
        "nulls": 0,
        "null_fraction": 0.0,
        "distinct": 5,
        "min": 1,
        "max": 5,
        "mean": 3.0,
        "stddev": pytest.approx(math.sqrt(2.5)),
        "quantiles": {"p25": 2.0, "p50": 3.0, "p75": 4.0},
        "histogram": [{"from": i, "to": i + 1, "count": 1} for i in range(1, 6)],
        "top_values": [{"value": i, "count": 1} for i in range(1, 6)],  # 5 values: a label
        "length": None,
    }


def test_a_number_column(tmp_path):
    temp = columns(profiled(written(tmp_path, CITIES)))["temp"]
    histogram = temp.pop("histogram")
    assert temp == {
        "name": "temp",
        "type": "DOUBLE",
        "count": 4,
        "nulls": 1,
        "null_fraction": 0.2,
        "distinct": 4,
        "min": 1.0,
        "max": 5.5,
        "mean": 3.0,
        "stddev": pytest.approx(math.sqrt(11.5 / 3)),
        "quantiles": {"p25": 1.75, "p50": 2.75, "p75": 4.0},
        "top_values": None,
        "length": None,
    }
    assert len(histogram) == 20
    assert histogram[0] == {"from": 1.0, "to": 1.225, "count": 1}
    assert histogram[-1] == {"from": 5.275, "to": 5.5, "count": 1}  # the maximum is in
    assert [b["count"] for b in histogram if b["count"]] == [1, 1, 1, 1]
    assert all(a["to"] == b["from"] for a, b in zip(histogram, histogram[1:], strict=False))


def test_a_text_column(tmp_path):
    assert columns(profiled(written(tmp_path, CITIES)))["city"] == {
        "name": "city",
        "type": "VARCHAR",
        "count": 4,
        "nulls": 1,
        "null_fraction": 0.2,
        "distinct": 2,
        "min": "Bergen",
        "max": "Oslo",
        "mean": None,
        "stddev": None,
        "quantiles": None,
        "histogram": None,
        "top_values": [{"value": "Oslo", "count": 3}, {"value": "Bergen", "count": 1}],
        "length": {"min": 4, "max": 6, "mean": 4.5},
    }


def test_a_date_column(tmp_path):
    day = columns(profiled(written(tmp_path, CITIES)))["day"]
    assert (day["min"], day["max"], day["count"], day["nulls"]) == (
        "2024-01-01",
        "2024-01-10",
        4,
        1,
    )
    assert (day["mean"], day["stddev"], day["quantiles"], day["top_values"]) == (None,) * 4
    assert day["histogram"] == [  # a day each, the last one holding the 10th
        {"from": f"2024-01-{d:02}", "to": f"2024-01-{d + 1:02}", "count": c}
        for d, c in zip(range(1, 11), [1, 1, 1, 0, 0, 0, 0, 0, 0, 1], strict=True)
    ]


def test_a_boolean_column(tmp_path):
    wet = columns(profiled(written(tmp_path, CITIES)))["wet"]
    assert wet["top_values"] == [{"value": True, "count": 3}, {"value": False, "count": 1}]
    assert (wet["count"], wet["nulls"], wet["distinct"]) == (4, 1, 2)
    assert (wet["min"], wet["max"], wet["mean"], wet["histogram"], wet["length"]) == (None,) * 5


def test_a_column_of_nulls_only(tmp_path):
    empty = columns(profiled(written(tmp_path, CITIES)))["empty"]
    assert {key: empty[key] for key in ("count", "nulls", "null_fraction", "distinct")} == {
        "count": 0,
        "nulls": 5,
        "null_fraction": 1.0,
        "distinct": 0,
    }
    assert (empty["min"], empty["max"], empty["length"], empty["top_values"]) == (
        None,
        None,
        None,
        [],
    )


def test_a_file_with_a_header_only(tmp_path):
    found = profiled(written(tmp_path, "a,b\n"))
    assert found["schema"] == {
        "columns": [
            {"name": "a", "type": "VARCHAR", "nullable": False},
            {"name": "b", "type": "VARCHAR", "nullable": False},
        ],
        "rows": 0,
    }
    assert found["profile"]["partial"] is False
    a = columns(found)["a"]
    assert (a["count"], a["nulls"], a["null_fraction"], a["top_values"], a["min"]) == (
        0,
        0,
        0.0,
        [],
        None,
    )


def test_a_parquet_file(tmp_path):
    path = copied(
        tmp_path,
        "SELECT i::INTEGER AS n, (i / 4)::DECIMAL(6, 2) AS price, "
        "TIMESTAMP '2024-01-01' + INTERVAL (i) HOUR AS at FROM range(8) r(i)",
    )
    found = columns(profiled(path))
    assert [(c["name"], c["type"]) for c in found.values()] == [
        ("n", "INTEGER"),
        ("price", "DECIMAL(6,2)"),
        ("at", "TIMESTAMP"),
    ]
    price, at = found["price"], found["at"]
    assert (price["min"], price["max"], price["mean"]) == ("0.00", "1.75", 0.875)
    assert price["quantiles"] == {"p25": 0.4375, "p50": 0.875, "p75": 1.3125}
    assert sum(b["count"] for b in price["histogram"]) == 8
    assert price["top_values"] is None
    assert (at["min"], at["max"]) == ("2024-01-01T00:00:00", "2024-01-01T07:00:00")
    assert at["histogram"][0]["from"] == "2024-01-01T00:00:00+00:00"
    assert at["histogram"][-1]["to"] == "2024-01-01T07:00:00+00:00"
    assert sum(b["count"] for b in at["histogram"]) == 8


def test_a_json_lines_file(tmp_path):
    text = '{"name": "a", "score": 1}\n{"name": "b", "score": null}\n{"name": "a", "score": 3}\n'
    found = profiled(written(tmp_path, text, "data.jsonl"))
    assert found["schema"]["columns"] == [
        {"name": "name", "type": "VARCHAR", "nullable": False},
        {"name": "score", "type": "BIGINT", "nullable": True},
    ]
    name, score = columns(found)["name"], columns(found)["score"]
    assert name["top_values"] == [{"value": "a", "count": 2}, {"value": "b", "count": 1}]
    assert (score["count"], score["mean"], score["quantiles"]["p50"]) == (2, 2.0, 2.0)


def test_infinities_and_nan_stay_json_and_out_of_histograms(tmp_path):
    path = copied(
        tmp_path,
        "SELECT CASE i WHEN 0 THEN 'inf'::DOUBLE WHEN 1 THEN '-inf'::DOUBLE "
        "WHEN 2 THEN 'nan'::DOUBLE ELSE i END AS x FROM range(10) r(i)",
    )
    x = columns(profiled(path))["x"]
    assert (x["count"], x["min"], x["max"]) == (10, "-inf", "nan")
    assert x["histogram"][0]["from"] == 3.0 and x["histogram"][-1]["to"] == 9.0
    assert sum(b["count"] for b in x["histogram"]) == 7  # the finite values


def test_long_text_is_cut(tmp_path):
    long = "x" * 300
    found = columns(profiled(written(tmp_path, f"word\n{long}\n{long}\nyy\n")))["word"]
    assert (found["min"], found["max"]) == ("x" * 200, "yy")
    assert found["top_values"][0] == {"value": "x" * 200, "count": 2}
    assert found["length"] == {"min": 2, "max": 300, "mean": pytest.approx(602 / 3)}


def test_histograms_have_at_most_20_bins_counting_every_value(tmp_path):
    path = copied(
        tmp_path,
        "SELECT i AS n, i * 0.37 AS x, DATE '2020-01-01' + i::INT AS d, "
        "CASE WHEN i % 7 = 0 THEN NULL ELSE i END AS m FROM range(1000) r(i)",
    )
    found = columns(profiled(path))
    for column in found.values():
        assert 1 <= len(column["histogram"]) <= 20
        assert sum(b["count"] for b in column["histogram"]) == column["count"]
    assert found["m"]["count"] == 1000 - 143
    assert (found["n"]["histogram"][0]["from"], found["n"]["histogram"][-1]["to"]) == (0, 1000)
    assert found["d"]["histogram"][0]["from"] == "2020-01-01"
    assert found["x"]["histogram"][-1]["to"] == 369.63


def test_top_values_of_label_columns_only(tmp_path):
    path = copied(
        tmp_path,
        "SELECT i % 15 AS few, i AS many, 'w' || (i % 12)::VARCHAR AS word, i * 1.5 AS x "
        "FROM range(300) r(i)",
    )
    found = columns(profiled(path))
    assert found["few"]["top_values"] == [{"value": v, "count": 20} for v in range(10)]
    words = sorted(f"w{v}" for v in range(12))[:10]  # ties: in order of the values
    assert found["word"]["top_values"] == [{"value": w, "count": 25} for w in words]
    assert found["many"]["top_values"] is None  # 300 values: not a label
    assert found["x"]["top_values"] is None


def test_quartiles_are_estimated_past_a_million_rows(tmp_path):
    path = copied(tmp_path, "SELECT i AS n, (i % 3)::VARCHAR AS k FROM range(1000001) r(i)")
    found = profiled(path)
    assert found["profile"]["partial"] is True
    n = columns(found)["n"]
    assert (n["count"], n["min"], n["max"], n["mean"]) == (1000001, 0, 1000000, 500000.0)
    for key, exact in (("p25", 250000), ("p50", 500000), ("p75", 750000)):
        assert n["quantiles"][key] == pytest.approx(exact, rel=0.01)
    assert sum(b["count"] for b in n["histogram"]) == 1000001
    assert columns(found)["k"]["top_values"][0] == {"value": "0", "count": 333334}


def test_quartiles_in_several_passes_under_a_small_budget(tmp_path, monkeypatch):
    sql = "SELECT i AS a, i * 2.5 AS b, 100 - i AS c FROM range(100) r(i)"
    path = copied(tmp_path, sql)
    whole = profiled(path)
    monkeypatch.setattr(job, "QUANTILE_VALUE_BYTES", 2_560_000)  # one column of 100 a pass
    assert profiled(path) == whole
    monkeypatch.setattr(job, "QUANTILE_VALUE_BYTES", 5_120_000)  # 50 values: a sample
    sampled = profiled(path)
    assert sampled["profile"]["partial"] is True
    assert columns(sampled)["a"]["quantiles"] != columns(whole)["a"]["quantiles"]
    assert columns(sampled)["a"]["mean"] == columns(whole)["a"]["mean"]


def test_a_file_that_is_not_a_table_is_unreadable(tmp_path):
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    assert profiled(path) == {"unreadable": "the file is binary, not CSV, Parquet or JSON lines"}


def test_a_damaged_csv_is_unreadable_without_its_path(tmp_path):
    path = written(tmp_path, "a,b\n1,2\n3,4,5\n")
    found = profiled(path)
    assert set(found) == {"unreadable"}
    assert str(tmp_path) not in found["unreadable"]


def test_a_missing_file_is_a_job_error(tmp_path):
    with pytest.raises(JobError) as raised:
        profiled(tmp_path / "gone.csv")
    assert raised.value.kind == "missing"
