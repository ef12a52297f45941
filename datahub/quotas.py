"""Per-user quotas: stored bytes, datasets, and queued or running runs (``QUOTA_*``).

Usage is counted from the rows themselves, never kept in a counter. A check that must hold
under concurrent requests runs inside the write transaction that would exceed it: call
:func:`lock_user` first (before locking any dataset or run row, so that every path takes
the locks in one order), then the ``check_*`` function, then write and commit. On
PostgreSQL the lock is ``SELECT ... FOR NO KEY UPDATE`` on the user's row; SQLite serialises
writers already (a writing request, and the pipeline worker, begins with ``BEGIN
IMMEDIATE``), so there the row is only read. A limit of ``None`` is no limit.
"""

import sqlalchemy as sa
from flask import current_app

from datahub.app.extensions import db
from datahub.datasets.models import Dataset, DatasetVersion
from datahub.identity.models import User
from datahub.pipelines.models import ACTIVE_STATUSES, Pipeline, Run
from datahub.platform.errors import NoRoom, Refused, Throttled

# The Retry-After of a 429 ``Too many queued runs``: a run takes seconds to minutes, and a
# client polling faster than this only finds the same runs still queued.
RUNS_RETRY_AFTER_SECONDS = 10


class StorageQuotaExceeded(NoRoom):
    """The owner's stored bytes would go over ``QUOTA_STORAGE_BYTES``."""

    message = "Storage quota exceeded"


class DatasetQuotaExceeded(Refused):
    """The owner has ``QUOTA_DATASETS`` datasets already."""

    message = "Dataset quota exceeded"


class QueuedRunsQuotaExceeded(Throttled):
    """The owner has ``QUOTA_QUEUED_RUNS`` runs queued or running already."""

    message = "Too many queued runs"
    retry_after = RUNS_RETRY_AFTER_SECONDS


def limits():
    """The configured limits: ``{"storage_bytes", "datasets", "queued_runs"}``, None = none."""
    config = current_app.config
    return {
        "storage_bytes": _limit(config.get("QUOTA_STORAGE_BYTES")),
        "datasets": _limit(config.get("QUOTA_DATASETS")),
        "queued_runs": _limit(config.get("QUOTA_QUEUED_RUNS")),
    }


def _limit(value):
    return None if value is None else int(value)


def lock_user(user_id):
    """Lock the user's row until the transaction ends (see the module's docstring)."""
    # FOR NO KEY UPDATE: it excludes another lock_user, not the inserts of rows that refer
    # to the user (a login's session). SQLite has none (SQLAlchemy leaves it out): its
    # BEGIN IMMEDIATE is the lock.
    db.session.execute(sa.select(User.id).where(User.id == user_id).with_for_update(key_share=True))


def stored_bytes(user_id):
    """The bytes of every stored object of the versions of the datasets ``user_id`` owns
    (versions with the same bytes share one object, counted once)."""
    objects = (
        sa.select(sa.func.max(DatasetVersion.size_bytes).label("size"))
        .join(Dataset, Dataset.id == DatasetVersion.dataset_id)
        .where(Dataset.owner_id == user_id)
        .group_by(DatasetVersion.file_key)
        .subquery()
    )
    total = db.session.scalar(sa.select(sa.func.coalesce(sa.func.sum(objects.c.size), 0)))
    return int(total)  # PostgreSQL's sum of a bigint is a numeric (a Decimal)


def owned_datasets(user_id):
    return db.session.scalar(
        sa.select(sa.func.count()).select_from(Dataset).where(Dataset.owner_id == user_id)
    )


def active_runs(user_id):
    """Runs queued or running, over every pipeline ``user_id`` owns."""
    return db.session.scalar(
        sa.select(sa.func.count())
        .select_from(Run)
        .join(Pipeline, Pipeline.id == Run.pipeline_id)
        .where(Pipeline.owner_id == user_id, Run.status.in_(ACTIVE_STATUSES))
    )


def usage(user_id):
    """What ``GET /auth/me/usage`` answers."""
    return {
        "storage_bytes": stored_bytes(user_id),
        "datasets": owned_datasets(user_id),
        "queued_runs": active_runs(user_id),
        "limits": limits(),
    }


def storage_room(owner_id):
    """Bytes the owner may still add, or None without a storage quota. Negative once over
    it (the quota was lowered)."""
    quota = limits()["storage_bytes"]
    if quota is None:
        return None
    return quota - stored_bytes(owner_id)


def check_storage(owner_id, adding_bytes):
    """Raise :class:`StorageQuotaExceeded` if storing ``adding_bytes`` would go over the
    quota. Call after :func:`lock_user`."""
    room = storage_room(owner_id)
    if room is not None and adding_bytes > room:
        raise StorageQuotaExceeded()


def check_datasets(owner_id):
    """Raise :class:`DatasetQuotaExceeded` if the owner may not have one dataset more.
    Call after :func:`lock_user`."""
    quota = limits()["datasets"]
    if quota is not None and owned_datasets(owner_id) >= quota:
        raise DatasetQuotaExceeded()


def check_queued_runs(owner_id):
    """Raise :class:`QueuedRunsQuotaExceeded` if the owner may not queue one run more.
    Call after :func:`lock_user`."""
    quota = limits()["queued_runs"]
    if quota is not None and active_runs(owner_id) >= quota:
        raise QueuedRunsQuotaExceeded()
