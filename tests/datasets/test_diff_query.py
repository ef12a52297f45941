"""The diff job's own function (datahub.datasets.diff_query), on files: how a repeated
matched key is found."""

import pytest


@pytest.mark.parametrize("profiled", [True, False])
def test_repeated_matched_keys_are_found_with_or_without_the_profile(
    tmp_path, monkeypatch, profiled
):
    """The check counts the scans' rows from DuckDB's profile; without one it counts the
    distinct matched keys. Either way a repeat is found, and unique keys pass."""
    from datahub.datasets import diff_query, tabular
    from datahub.platform.isolation import JobError

    if not profiled:
        monkeypatch.setattr(tabular, "rows_scanned", lambda *args: None)
    old, new, repeated = (tmp_path / name for name in ("old.csv", "new.csv", "repeated.csv"))
    old.write_text("id,v\n1,a\n2,b\n")
    new.write_text("id,v\n1,x\n2,b\n")
    repeated.write_text("id,v\n1,x\n1,y\n2,b\n")
    options = {"memory_limit": "256MB", "max_line_size": 1 << 20}
    result = diff_query.diff_files(str(old), str(new), ["id"], **options)
    assert result["rows"] == {"added": 0, "removed": 0, "changed": 1, "unchanged": 1}
    for first, second in ((old, repeated), (repeated, old)):
        with pytest.raises(JobError) as raised:
            diff_query.diff_files(str(first), str(second), ["id"], **options)
        assert raised.value.kind == "duplicate_keys"
