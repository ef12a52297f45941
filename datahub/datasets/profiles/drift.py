"""How the columns of two versions changed, from their profiles: the ``profile`` part of
a diff (docs/guides/understand.rst, "Drift")."""

from datahub.datasets.profiles import services

DRIFT_VALUES = 10  # new and missing values listed per column, at most


def profile_drift(old, new):
    """``[{"name", "null_fraction", "distinct", "mean", "new_values", "missing_values"}]``
    for the columns both versions have, in the new version's order; None while either
    profile is not ready."""
    before, after = services.profile_of(old), services.profile_of(new)
    if before["status"] != "ready" or after["status"] != "ready":
        return None
    old_columns = {column["name"]: column for column in before["columns"]}
    drift = []
    for column in after["columns"]:
        was = old_columns.get(column["name"])
        if was is None:
            continue
        old_values, new_values = _top(was), _top(column)
        drift.append(
            {
                "name": column["name"],
                **{
                    measure: {"from": was.get(measure), "to": column.get(measure)}
                    for measure in ("null_fraction", "distinct", "mean")
                },
                "new_values": [v for v in new_values if v not in old_values][:DRIFT_VALUES],
                "missing_values": [v for v in old_values if v not in new_values][:DRIFT_VALUES],
            }
        )
    return drift


def _top(column):
    """A column's most frequent values (label columns), most frequent first."""
    return [item["value"] for item in column.get("top_values") or []]
