"""The SQL console (``POST /api/v1/query``): the tables a query names resolved to datasets
the caller may read and their versions, the query executed by datahub.query.job in a
process of the console's own (``QUERY_CONCURRENCY`` turns per web process,
``QUERY_USER_CONCURRENCY`` per user, ``QUERY_TIMEOUT_SECONDS`` waiting included, the
pipelines' memory limit and threads), never in the web process."""

import collections
import contextlib
import dataclasses
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets import tabular, versions
from datahub.datasets.errors import VersionNotFound
from datahub.datasets.models import Dataset
from datahub.datasets.sql_check import check_console_select, check_select, statement_text
from datahub.pipelines.steps import MAX_QUERY
from datahub.platform import isolation
from datahub.platform.isolation.turns import Turns
from datahub.platform.storage import get_storage
from datahub.query import errors
from datahub.resources import access
from datahub.resources.services import name_key

log = logging.getLogger(__name__)

# A table named ``<dataset's name>@<version>`` reads that version.
PINNED = re.compile(r"(.+)@([0-9]{1,9})", re.DOTALL)
_turns = Turns("QUERY_CONCURRENCY")
_lock = threading.Lock()
_running = collections.Counter()  # user id → queries running in this process


@dataclass(frozen=True)
class Table:
    """A table the query names, and the dataset version it reads."""

    name: str
    dataset_id: int
    dataset_name: str
    version: int
    file_key: str
    pinned_by_name: bool = False  # written ``name@N``


@dataclass(frozen=True)
class Export:
    """A query's whole result as a file in ``folder`` (removed once it is sent)."""

    path: str
    folder: str
    fmt: str

    @property
    def content_type(self):
        return tabular.CONTENT_TYPES[self.fmt]

    @property
    def download_name(self):
        return "query" + tabular.SUFFIXES[self.fmt]

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


def tables_of(sql, user, pins=()):
    """``(tables, unbound)``: the tables ``sql`` reads, each resolved for ``user`` (the
    dataset of that name, case-insensitively, at its current version, the version ``pins``
    give its id, or the version a ``@N`` suffix names), and the names that are the query's
    own WITH names and no dataset it may read."""
    problem, names = check_console_select(sql)
    if problem:  # the body's schema checked it already
        raise errors.QueryFailed(f"Query failed: {problem}")
    pinned = {pin["dataset_id"]: pin["version"] for pin in pins}
    tables, unbound = [], []
    for name, required in names:
        try:
            tables.append(_resolve(name, user, pinned))
        except (errors.QueryDatasetNotFound, errors.QueryDatasetHasNoFile):
            if required:
                raise
            # Also a WITH name of the query: outside that WITH's scope it is no table.
            unbound.append(name)
    return tables, unbound


def _resolve(name, user, pinned):
    dataset = _readable(name, user)
    if dataset is not None:
        return _table(name, dataset, pinned.get(dataset.id))
    match = PINNED.fullmatch(name)
    dataset = _readable(match.group(1), user) if match else None
    if dataset is None:
        raise errors.QueryDatasetNotFound(name)
    return dataclasses.replace(_table(name, dataset, int(match.group(2))), pinned_by_name=True)


def _readable(name, user):
    dataset = db.session.scalar(sa.select(Dataset).where(Dataset.name_key == name_key(name)))
    if dataset is None or not access.may_read(user, dataset):
        return None
    return dataset


def _table(name, dataset, number):
    if number is None:
        if dataset.file_key is None:
            raise errors.QueryDatasetHasNoFile(name)
        return Table(name, dataset.id, dataset.name, dataset.current_version, dataset.file_key)
    try:
        version = versions.get_version(dataset.id, number)
    except VersionNotFound:
        raise errors.QueryVersionNotFound(dataset.name, number) from None
    return Table(name, dataset.id, dataset.name, number, version.file_key)


def as_pipeline(sql, tables):
    """The body of a pipeline that makes what ``sql`` makes of its one dataset (its
    ``source_dataset_id`` and one sql step over ``input``); None when it reads no dataset
    or more than one, or the step would not be accepted."""
    if len({table.dataset_id for table in tables}) != 1 or len(tables) != 1:
        return None
    text = statement_text(sql)
    step = (
        f"WITH {tabular.quote(tables[0].name)} AS (SELECT * FROM input)\nSELECT * FROM (\n{text}\n)"
    )
    if len(step) > MAX_QUERY or check_select(step):
        return None
    return {"source_dataset_id": tables[0].dataset_id, "steps": [{"op": "sql", "query": step}]}


def run_query(values, user, config, fmt=None, cancelled=None):
    """The answer to ``values`` (``sql``, ``limit``, ``pins``) for ``user``: the first rows
    as JSON, or (``fmt``) the whole result as an :class:`Export`. ``cancelled()`` is asked
    while the query runs: once true, the job is stopped (422 ``Query cancelled``)."""
    started = time.monotonic()
    sql = values["sql"]
    tables, unbound = tables_of(sql, user, values.get("pins") or ())
    db.session.commit()  # nothing is held while DuckDB works
    with _user_turn(user, config):
        answer = _execute(sql, tables, unbound, values.get("limit", 1000), config, fmt, cancelled)
    if fmt:
        return answer
    answer["elapsed_ms"] = round((time.monotonic() - started) * 1000, 1)
    answer["inputs"] = list(
        {
            (table.dataset_id, table.version): {
                "dataset_id": table.dataset_id,
                "name": table.dataset_name,
                "version": table.version,
            }
            for table in tables
        }.values()
    )
    # What to send back as ``pins`` for the same rows: the tables written without ``@N``.
    answer["pins"] = list(
        {
            table.dataset_id: {"dataset_id": table.dataset_id, "version": table.version}
            for table in tables
            if not table.pinned_by_name
        }.values()
    )
    answer["pipeline"] = as_pipeline(sql, tables)
    return answer


@contextlib.contextmanager
def _user_turn(user, config):
    with _lock:
        if _running[user.id] >= int(config["QUERY_USER_CONCURRENCY"]):
            raise errors.TooManyQueries()
        _running[user.id] += 1
    try:
        yield
    finally:
        with _lock:
            _running[user.id] -= 1
            if not _running[user.id]:
                del _running[user.id]


def _execute(sql, tables, unbound, limit, config, fmt, cancelled):
    temp = config.get("PIPELINE_TEMP_DIR")
    work = tempfile.mkdtemp(prefix="datahub-query-", dir=temp)
    folder = tempfile.mkdtemp(prefix="datahub-query-out-", dir=temp) if fmt else None
    try:
        with contextlib.ExitStack() as stack:
            local = _local_copies(tables, work, stack)
            args = _job_args(sql, tables, unbound, local, limit, config, work)
            output = os.path.join(folder, "result" + tabular.SUFFIXES[fmt]) if fmt else None
            if output:
                args.update(output=output, format=fmt)
            answer = _run_job(args, config, output, cancelled)
        if fmt:
            export, folder = Export(output, folder, fmt), None
            return export
        return answer
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


def _local_copies(tables, work, stack):
    """Storage key → a path the job can read (S3: a copy in ``work``)."""
    storage = get_storage()
    try:
        return {
            key: stack.enter_context(storage.local_copy(key, work))
            for key in dict.fromkeys(table.file_key for table in tables)
        }
    except FileNotFoundError:
        raise errors.QueryFailed(_GONE) from None


_GONE = "Query failed: a dataset's file is gone from storage; run the query again"


def _job_args(sql, tables, unbound, local, limit, config, work):
    spill = os.path.join(work, "spill")
    os.mkdir(spill)
    return {
        "sql": sql,
        "tables": {table.name: local[table.file_key] for table in tables},
        "unbound": list(unbound),
        "names": {
            local[table.file_key]: f"{table.dataset_name}@{table.version}" for table in tables
        },
        "limit": int(limit),
        "spill": spill,
        "memory_limit": str(config["PIPELINE_MEMORY_LIMIT"]),
        "threads": config.get("PIPELINE_THREADS"),
        "max_line_size": int(config["PIPELINE_MAX_LINE_SIZE"]),
        "max_columns": int(config["PIPELINE_MAX_COLUMNS"]),
        "max_bytes": int(config["QUERY_MAX_RESPONSE_BYTES"]),
    }


def _run_job(args, config, output, cancelled):
    """The job's answer; its failures as the console's errors."""

    def check():
        if cancelled is not None and cancelled():
            log.info("query cancelled: the client went away")
            raise errors.QueryCancelled()

    try:
        return _turns.run(
            "query",
            args,
            config,
            float(config["QUERY_TIMEOUT_SECONDS"]),
            errors.QueryTimedOut,
            check=check,
            output_path=output,
            output_bytes=int(config["QUERY_MAX_BYTES"]) if output else None,
        )
    except isolation.JobError as exc:
        raise _job_error(exc) from None
    except isolation.JobKilled as exc:
        raise _killed(exc) from None


def _job_error(exc):
    if exc.kind == "too_large":
        return errors.QueryTooLarge()
    if exc.kind == "missing":
        return errors.QueryFailed(_GONE)
    return errors.QueryFailed(exc.message or "Query failed")


def _killed(exc):
    if exc.reason == "timeout":
        return errors.QueryTimedOut()
    if exc.reason == "memory":
        return errors.QueryOutOfMemory()
    if exc.reason == "output":
        return errors.QueryTooLarge()
    log.warning("a console query's process ended unexpectedly: %s", exc)
    return errors.QueryFailed("Query failed: its process ended unexpectedly")
