"""Usage statistics of datasets (docs/reference/datasets.rst, "Usage statistics"): views
and downloads per dataset and UTC day, counted in each process's memory and added to
``dataset_usage`` in batches, so that no read writes to the database.

A view is a ``GET /datasets/{id}`` answered 2xx or 304. A download is a ``GET`` of the
dataset's file or of a version's file answered 200, 302 (a presigned URL) or 206 for a
range that starts at the first byte: a client that fetches a file in several ranges
counts once, a 304 sent no bytes and a HEAD asked for none, so neither counts.

A process's counts are written (:func:`flush`) once ``USAGE_FLUSH_SECONDS`` have passed
since its last flush, after the response of the request that notices it has been sent;
when the process exits; and when a test asks. A flush is one transaction of its own,
which also sets the touched datasets' ``search_documents.popularity``; one that fails is
logged and its counts are kept for the next. Each process (gunicorn worker, host)
flushes its own counts: the upsert adds them up.
"""

import atexit
import logging
import threading
import time
import weakref
from datetime import timedelta

import sqlalchemy as sa
from flask import current_app, g, request
from sqlalchemy.dialects import postgresql, sqlite

from datahub.app.extensions import db
from datahub.app.registry import per_app
from datahub.datasets.models import Dataset, DatasetUsage
from datahub.platform.database import utcnow

log = logging.getLogger("datahub.datasets.usage")

WINDOW_DAYS = 30  # ``stats`` and ``popularity`` sum the days after today - 30
KEEP_DAYS = 31  # rows this old or older are deleted by the worker's sweep
CHUNK = 500  # datasets per statement
EXTENSION = "datahub.usage"
VIEW_ENDPOINT = "datasets.DatasetById"
DOWNLOAD_ENDPOINTS = frozenset({"datasets.DatasetFile", "datasets.DatasetVersionFile"})
DOWNLOAD_STATUSES = frozenset({200, 206, 302})

# The search index's table, written here only by name (datahub.search.models owns it).
SEARCH_DOCUMENTS = sa.table(
    "search_documents", sa.column("kind"), sa.column("resource_id"), sa.column("popularity")
)


class Counts:
    """A process's counts not yet written: ``{(dataset_id, day): [views, downloads]}``."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pending = {}
        self.last_flush = time.monotonic()
        self.pruned_through = None  # the last day whose leaving the window was applied

    def add(self, dataset_id, day, views=0, downloads=0):
        with self.lock:
            both = self.pending.setdefault((dataset_id, day), [0, 0])
            both[0] += views
            both[1] += downloads

    def due(self, every):
        """Whether a flush is due; if so, this caller is the one to do it (the next is
        due ``every`` seconds later, even if this one never happens)."""
        if not self.pending or time.monotonic() - self.last_flush < every:
            return False  # the common case, without the lock
        with self.lock:
            if time.monotonic() - self.last_flush < every:
                return False  # another thread took it
            self.last_flush = time.monotonic()
            return True

    def take(self):
        with self.lock:
            taken, self.pending = self.pending, {}
            return taken

    def put_back(self, taken):
        for (dataset_id, day), (views, downloads) in taken.items():
            self.add(dataset_id, day, views, downloads)

    def flushed(self):
        with self.lock:
            self.last_flush = time.monotonic()


def init_app(app):
    """Count the app's views and downloads, and flush them at request ends and at exit."""
    counts_of(app)
    app.after_request(count_response)
    atexit.register(_flush_at_exit, weakref.ref(app))


def counts_of(app):
    """The counts ``app``'s process has not written yet."""
    return per_app(app, EXTENSION, Counts)


def count_response(response):
    """After a request: count it if it is a view or a download; flush once the response
    is sent if ``USAGE_FLUSH_SECONDS`` have passed."""
    app = current_app._get_current_object()
    counts = counts_of(app)
    kind = _usage_kind(request, response)
    if kind is not None:
        counts.add(request.view_args["dataset_id"], today(), **{kind: 1})
    if counts.due(float(app.config["USAGE_FLUSH_SECONDS"])):
        response.call_on_close(lambda: flush(app))
    return response


def _usage_kind(req, response):
    if req.method != "GET" or not req.view_args or "dataset_id" not in req.view_args:
        return None
    status = response.status_code
    if req.endpoint == VIEW_ENDPOINT:
        return "views" if 200 <= status < 300 or status == 304 else None
    if req.endpoint in DOWNLOAD_ENDPOINTS and status in DOWNLOAD_STATUSES:
        first = status != 206 or (response.content_range and response.content_range.start == 0)
        return "downloads" if first else None
    return None


def today():
    return utcnow().date()


def window_start():
    """The last day before the window: ``stats`` and ``popularity`` count later days."""
    return today() - timedelta(days=WINDOW_DAYS)


def flush(app):
    """Write the counts of ``app``'s process in one transaction of its own; False (and a
    warning, the counts kept for the next flush) when it failed. Never raises."""
    counts = counts_of(app)
    taken = counts.take()
    try:
        if taken:
            with app.app_context():
                _write(taken)
    except Exception as exc:  # noqa: BLE001  a request or an exit must not fail for this
        counts.put_back(taken)
        log.warning(
            "usage statistics not written, kept for the next flush: %s: %s",
            type(exc).__name__,
            str(exc).splitlines()[0] if str(exc) else "",
        )
        return False
    finally:
        counts.flushed()
    return True


def _flush_at_exit(app_ref):
    app = app_ref()
    if app is not None and counts_of(app).pending:
        flush(app)


def _write(taken):
    by_day = {}
    for (dataset_id, day), both in taken.items():
        by_day.setdefault(day, {})[dataset_id] = both
    with db.engine.begin() as conn:
        for day in sorted(by_day):
            counts = by_day[day]
            ids = sorted(counts)
            for start in range(0, len(ids), CHUNK):
                chunk = {key: counts[key] for key in ids[start : start + CHUNK]}
                conn.execute(_upsert(conn.dialect.name, day, chunk))
        set_popularity(conn, sorted({dataset_id for dataset_id, _day in taken}))


def _upsert(dialect, day, counts):
    """``INSERT ... SELECT`` from ``datasets``: the counts of datasets deleted meanwhile
    are dropped (PostgreSQL: the rows are locked against a delete until the commit)."""
    views = sa.case({key: both[0] for key, both in counts.items()}, value=Dataset.id, else_=0)
    downloads = sa.case({key: both[1] for key, both in counts.items()}, value=Dataset.id, else_=0)
    rows = (
        sa.select(Dataset.id, sa.literal(day, sa.Date), views, downloads)
        .where(Dataset.id.in_(list(counts)))
        .order_by(Dataset.id)
    )
    if dialect == "postgresql":
        rows = rows.with_for_update(key_share=True)
    insert = (postgresql if dialect == "postgresql" else sqlite).insert(DatasetUsage)
    insert = insert.from_select(["dataset_id", "day", "views", "downloads"], rows)
    return insert.on_conflict_do_update(
        index_elements=["dataset_id", "day"],
        set_={
            "views": DatasetUsage.views + insert.excluded.views,
            "downloads": DatasetUsage.downloads + insert.excluded.downloads,
        },
    )


def set_popularity(conn, dataset_ids):
    """``search_documents.popularity`` of these datasets' rows (those that exist): their
    views and downloads in the window."""
    recent = (
        sa.select(sa.func.coalesce(sa.func.sum(DatasetUsage.views + DatasetUsage.downloads), 0))
        .where(
            DatasetUsage.dataset_id == SEARCH_DOCUMENTS.c.resource_id,
            DatasetUsage.day > window_start(),
        )
        .scalar_subquery()
    )
    for start in range(0, len(dataset_ids), CHUNK):
        conn.execute(
            sa.update(SEARCH_DOCUMENTS)
            .where(
                SEARCH_DOCUMENTS.c.kind == "dataset",
                SEARCH_DOCUMENTS.c.resource_id.in_(dataset_ids[start : start + CHUNK]),
                # not rewritten when it stays (a reindex sets every dataset's)
                SEARCH_DOCUMENTS.c.popularity != recent,
            )
            .values(popularity=recent)
        )


def prune_usage(batch=1000):
    """The worker's sweep: the popularity of the datasets whose window lost a day since
    this process last looked, then the rows ``KEEP_DAYS`` old or older, ``batch``
    datasets' at a time (each batch its own transaction); how many rows went."""
    counts = counts_of(current_app)
    start = window_start()
    if counts.pruned_through != start:
        left = sa.select(DatasetUsage.dataset_id).where(DatasetUsage.day <= start).distinct()
        if counts.pruned_through is not None:
            left = left.where(DatasetUsage.day > counts.pruned_through)
        set_popularity(db.session.connection(), sorted(db.session.scalars(left)))
        db.session.commit()
        counts.pruned_through = start
    old = today() - timedelta(days=KEEP_DAYS)
    removed = 0
    while True:
        ids = sorted(
            set(
                db.session.scalars(
                    sa.select(DatasetUsage.dataset_id).where(DatasetUsage.day <= old).limit(batch)
                )
            )
        )
        if ids:
            removed += db.session.execute(
                sa.delete(DatasetUsage)
                .where(DatasetUsage.dataset_id.in_(ids), DatasetUsage.day <= old)
                .execution_options(synchronize_session=False)
            ).rowcount
        db.session.commit()
        if len(ids) < batch:
            return removed


def know_page(datasets):
    """Read the stats of a page of datasets together (one query), for their bodies."""
    known = _known()
    missing = [dataset.id for dataset in datasets if dataset.id not in known]
    if missing:
        known.update(_stats(missing))


def stats_of(dataset):
    """``{"downloads_30d", "views_30d"}`` of ``dataset``, as flushed so far."""
    known = _known()
    if dataset.id not in known:
        known.update(_stats([dataset.id]))
    return known[dataset.id]


def _known():
    if "usage_stats" not in g:
        g.usage_stats = {}
    return g.usage_stats


def _stats(dataset_ids):
    found = {dataset_id: {"downloads_30d": 0, "views_30d": 0} for dataset_id in dataset_ids}
    rows = db.session.execute(
        sa.select(
            DatasetUsage.dataset_id,
            sa.func.sum(DatasetUsage.downloads),
            sa.func.sum(DatasetUsage.views),
        )
        .where(DatasetUsage.dataset_id.in_(dataset_ids), DatasetUsage.day > window_start())
        .group_by(DatasetUsage.dataset_id)
    )
    for dataset_id, downloads, views in rows:
        found[dataset_id] = {"downloads_30d": int(downloads or 0), "views_30d": int(views or 0)}
    return found
