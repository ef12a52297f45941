"""Search inside the data: the values of each dataset's current version in its search
document (``columns``, ``cell_values``, ``column_data``, ``values_version``).

Whoever changes a dataset's current version empties those fields in the same transaction
(``values_version`` None). A pipeline worker then calls :func:`index_pending` every
``SEARCH_VALUES_SECONDS``: it takes the datasets whose document's ``values_version`` is
not their current version, oldest first, reads each file's first rows in an isolated
process (datahub.search.values_job: the preview's bounds, ``PIPELINE_MEMORY_LIMIT`` and
``SEARCH_VALUES_TIMEOUT_SECONDS``) and writes what it found, if the dataset is still at
that version (its row locked, as every change of versions locks it). A file that is not
a table, or whose reading failed (too slow, too large, damaged), is recorded with no
columns, so it is not read again until the next version; the storage being unavailable
is tried again after ``RETRY_SECONDS``.
"""

import logging
import threading
import time

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from datahub.datasets.stored_jobs import Every, FileMissing, own_pool, quietly, run_stored_job
from datahub.platform import isolation, metrics
from datahub.platform.errors import InsufficientStorage, StorageUnavailable
from datahub.search.models import SearchDocument

log = logging.getLogger("datahub.search.values")

BATCH = 4  # datasets read per call of index_pending
RETRY_SECONDS = 300  # a dataset whose file could not be fetched is tried again after this
JOB = "column_values"  # datahub.app.jobs

_lock = threading.Lock()
_retry_after = {}  # dataset id → monotonic time: not tried before then (storage unavailable)


class Stopped(Exception):
    """The worker is shutting down: the reading in progress is abandoned."""


def index_pending(app, limit=BATCH, pool=None, shutdown=None):
    """Read and record the values of at most ``limit`` datasets whose document lacks
    those of their current version, oldest version first; how many were recorded.
    ``shutdown`` (an Event): stop between datasets, and kill a reading in progress."""
    with app.app_context():
        done = 0
        for dataset_id, version, key, name in pending(limit):
            if shutdown is not None and shutdown.is_set():
                break
            try:
                if index_version(app, dataset_id, version, key, name, pool, shutdown) is not None:
                    done += 1
            except Stopped:
                break
        return done


def index_dataset_now(app, dataset_id, pool=None):
    """Read and record the values of the dataset's current version now, whether or not
    they are (tests, reindexing); the columns recorded, or None when there was nothing
    to record (no dataset, no version, no search document, or a new version meanwhile)."""
    with app.app_context():
        row = db.session.execute(
            sa.select(Dataset.current_version, Dataset.file_key, Dataset.name).where(
                Dataset.id == dataset_id
            )
        ).first()
        db.session.commit()
        if row is None or row.current_version is None:
            return None
        return index_version(app, dataset_id, *row, pool, force=True)


def pending(limit):
    """``[(dataset id, version, file key, name)]`` of the datasets whose values are not
    those of their current version, the oldest current version first."""
    now = time.monotonic()
    with _lock:
        for dataset_id, until in list(_retry_after.items()):
            if until <= now:
                del _retry_after[dataset_id]
        waiting = list(_retry_after)
    document = SearchDocument
    query = (
        sa.select(Dataset.id, Dataset.current_version, Dataset.file_key, Dataset.name)
        .join(document, sa.and_(document.kind == "dataset", document.resource_id == Dataset.id))
        .where(
            Dataset.current_version.is_not(None),
            sa.or_(
                document.values_version.is_(None),
                document.values_version != Dataset.current_version,
            ),
        )
        .order_by(Dataset.file_uploaded_at, Dataset.id)
        .limit(int(limit))
    )
    if waiting:
        query = query.where(Dataset.id.not_in(waiting))
    rows = [tuple(row) for row in db.session.execute(query).all()]
    db.session.commit()  # nothing is held while the files are read
    return rows


def index_version(app, dataset_id, version, key, name, pool=None, shutdown=None, force=False):
    """Read version ``version`` of the dataset (its file ``key``) and record its values;
    the columns recorded, or None. A failure is recorded as no columns (and logged), but
    for the storage being unavailable: that dataset is tried again after RETRY_SECONDS."""
    started = time.monotonic()
    try:
        found = read_values(app, key, name, pool, shutdown)
    except (StorageUnavailable, InsufficientStorage) as exc:
        with _lock:
            _retry_after[dataset_id] = time.monotonic() + RETRY_SECONDS
        log.warning(
            "search values of dataset %s version %s: its file could not be fetched (%s); "
            "trying again in %s s",
            dataset_id,
            version,
            type(exc).__name__,
            RETRY_SECONDS,
        )
        metrics.count_search_values("retry")
        return None
    except ReadFailed as exc:
        log.warning(
            "search values of dataset %s version %s: not read (%s); recorded without columns",
            dataset_id,
            version,
            exc,
        )
        found, outcome = {"columns": []}, "failed"
    else:
        outcome = "not_tabular" if found.get("unreadable") else "indexed"
    if record(dataset_id, version, found["columns"], force):
        metrics.count_search_values(outcome)
        log.info(
            "search values of dataset %s version %s: %d column(s) in %.2f s%s",
            dataset_id,
            version,
            len(found["columns"]),
            time.monotonic() - started,
            f" (not a table: {found['unreadable']})" if found.get("unreadable") else "",
        )
        return found["columns"]
    return None


class ReadFailed(Exception):
    """The values could not be read: the message says why (for the log)."""


def read_values(app, key, name, pool=None, shutdown=None):
    """The job's answer for the stored file ``key``; :class:`ReadFailed`."""
    if key is None:
        raise ReadFailed("the version has no file")

    def check():
        if shutdown is not None and shutdown.is_set():
            raise Stopped()

    seconds = app.config["SEARCH_VALUES_TIMEOUT_SECONDS"]
    try:
        return run_stored_job(
            app.config, JOB, {"path": key}, {"name": name}, seconds, pool or own_pool(), check
        )
    except FileMissing:
        raise ReadFailed("its file is missing") from None
    except isolation.JobError as exc:
        raise ReadFailed(f"{exc.kind}: {exc.message}" if exc.message else exc.kind) from None
    except isolation.JobKilled as exc:
        raise ReadFailed(f"stopped: {exc}") from None


def record(dataset_id, version, columns, force=False):
    """Write ``columns`` as the values of version ``version`` of the dataset, if it is
    still its current version (and, unless ``force``, its document does not have them
    yet); whether they were written (committed)."""
    current = db.session.scalar(
        sa.select(Dataset.current_version).where(Dataset.id == dataset_id).with_for_update()
    )
    if current != version:
        db.session.rollback()
        return False
    document = SearchDocument
    statement = sa.update(document).where(
        document.kind == "dataset", document.resource_id == dataset_id
    )
    if not force:
        statement = statement.where(
            sa.or_(document.values_version.is_(None), document.values_version != version)
        )
    result = db.session.execute(
        statement.values(
            columns="\n".join(column["name"] for column in columns),
            cell_values="\n".join(value for column in columns for value in column["values"]),
            column_data=columns,
            values_version=version,
        ).execution_options(synchronize_session=False)
    )
    db.session.commit()
    return bool(result.rowcount)


def in_background(app, stop):
    """A thread that calls :func:`index_pending` every ``SEARCH_VALUES_SECONDS`` until
    ``stop`` is set (a Celery worker process: datahub.pipelines.tasks). Trouble is logged
    and the next round tries again."""
    return Every(
        app.config["SEARCH_VALUES_SECONDS"],
        lambda pool, shutdown: index_pending_quietly(app, pool=pool, shutdown=shutdown),
        stop,
        "search-values",
    )


def index_pending_quietly(app, **kwargs):
    """:func:`index_pending`, its failure logged in one line (the next round retries)."""
    return quietly(lambda: index_pending(app, **kwargs), "search values", log)
