"""A version as a Frictionless Data Package (https://specs.frictionlessdata.io/): one
tabular resource, the version's file, described by a Table Schema."""

import re

from datahub.platform.database import isoformat

TYPE = "type"  # a column's (and a check's) key: its kind
FORMATS = {"csv": "csv", "parquet": "parquet", "jsonl": "jsonl"}
INTEGERS = {
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
    "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT",
}  # fmt: skip
NUMBERS = {"FLOAT", "DOUBLE", "REAL"}
# Dates and times as DuckDB read them, in whatever form the file wrote them.
TEMPORAL = {"DATE": "date", "TIME": "time"}


def field_type(duckdb_type):
    """``(type, format)`` of a Table Schema field for a column of ``duckdb_type``."""
    kind = duckdb_type.upper()
    if kind in INTEGERS:
        return "integer", None
    if kind in NUMBERS or kind.startswith("DECIMAL"):
        return "number", None
    if kind == "VARCHAR":
        return "string", None
    if kind == "BOOLEAN":
        return "boolean", None
    if kind in TEMPORAL:
        return TEMPORAL[kind], "any"
    if kind.startswith("TIMESTAMP"):
        return "datetime", "any"
    if kind == "INTERVAL":
        return "duration", None
    if kind == "UUID":
        return "string", "uuid"
    if kind.endswith("]"):
        return "array", None
    if kind.startswith(("STRUCT", "MAP")):
        return "object", None
    return "any", None


def slug(text, fallback):
    """A Data Package name: lower case letters, digits, ``-``, ``.`` and ``_``."""
    name = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-._")
    return name or fallback


def data_package(dataset, version, schema, file_url):
    """The Data Package of ``version`` of ``dataset``, whose ``schema`` is read, its file
    at ``file_url``."""
    fields = []
    for column in schema["columns"]:
        kind, fmt = field_type(column[TYPE])
        field = {"name": column["name"], "type": kind}
        if fmt:
            field["format"] = fmt
        if not column["nullable"]:
            field["constraints"] = {"required": True}
        fields.append(field)
    name = slug(dataset.name, f"dataset-{dataset.id}")
    resource = {
        "name": name,
        "path": file_url,
        "profile": "tabular-data-resource",
        "format": FORMATS.get(version.format, version.format),
        "mediatype": version.content_type,
        "bytes": version.size_bytes,
        "hash": f"sha256:{version.sha256}",
        "schema": {"fields": fields},
    }
    if version.format == "csv":
        resource["encoding"] = "utf-8"
    package = {
        "profile": "tabular-data-package",
        "name": name,
        "title": dataset.name,
        "version": str(version.version),
        "created": isoformat(version.created_at),
        "resources": [resource],
    }
    if dataset.description:
        package["description"] = dataset.description
    if dataset.tags:
        package["keywords"] = list(dataset.tags)
    return package
