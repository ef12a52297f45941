"""The worker's side of profiles: every ``PROFILE_SECONDS`` a pipeline worker (or a thread
of a Celery worker) takes the pending contents, new versions' first and the backfill's
after them, and reads each in an isolated process (datahub.datasets.profiles.job: the
pipelines' memory limit and ``PROFILE_TIMEOUT_SECONDS``).

A worker holds a content while it reads it (``claimed_until``: the timeout and a minute);
one killed meanwhile lets it go when that time passes, so another worker, or the same one
restarted, reads it again; a content that was taken ``MAX_ATTEMPTS`` times without an
answer is recorded as failed. A file that is not a table, too slow or too large to read is
recorded as failed with the reason; the storage being unavailable leaves it pending, to be
tried again after ``RETRY_SECONDS``.
"""

import datetime
import logging
import time

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import DatasetVersion
from datahub.datasets.profiles.models import ContentProfile
from datahub.datasets.stored_jobs import Every, FileMissing, own_pool, quietly, run_stored_job
from datahub.platform import isolation, metrics
from datahub.platform.database import utcnow
from datahub.platform.errors import InsufficientStorage, StorageUnavailable

log = logging.getLogger("datahub.profiles")

BATCH = 4  # contents read per call of profile_pending
JOB = "profile"  # datahub.app.jobs
MAX_ATTEMPTS = 3
CLAIM_EXTRA_SECONDS = 60
RETRY_SECONDS = 300


class Stopped(Exception):
    """The worker is shutting down: the reading in progress is abandoned."""


class Unreadable(Exception):
    """The content cannot be profiled: the message says why, to the user."""


def profile_pending(app, limit=BATCH, pool=None, shutdown=None):
    """Read at most ``limit`` pending contents; how many were recorded. ``shutdown`` (an
    Event): stop between contents, and kill a reading in progress."""
    with app.app_context():
        done = 0
        while done < limit and not (shutdown is not None and shutdown.is_set()):
            claimed = claim(app.config)
            if claimed is None:
                break
            try:
                if profile_content(app, *claimed, pool=pool, shutdown=shutdown):
                    done += 1
            except Stopped:
                release(claimed[0], claimed[1])
                break
        return done


def claim(config):
    """``(sha256, size, attempts)`` of a pending content this worker now holds, or None."""
    now = utcnow()
    lease = float(config["PROFILE_TIMEOUT_SECONDS"]) + CLAIM_EXTRA_SECONDS
    for _ in range(5):  # another worker may take the same row first
        row = db.session.execute(
            sa.select(ContentProfile.sha256, ContentProfile.size_bytes, ContentProfile.attempts)
            .where(
                ContentProfile.status == "pending",
                sa.or_(ContentProfile.claimed_until.is_(None), ContentProfile.claimed_until < now),
            )
            .order_by(ContentProfile.backfill, ContentProfile.requested_at)
            .limit(1)
        ).first()
        if row is None:
            db.session.commit()
            return None
        taken = db.session.execute(
            sa.update(ContentProfile)
            .where(
                ContentProfile.sha256 == row.sha256,
                ContentProfile.size_bytes == row.size_bytes,
                ContentProfile.status == "pending",
                sa.or_(ContentProfile.claimed_until.is_(None), ContentProfile.claimed_until < now),
            )
            .values(
                claimed_until=now + datetime.timedelta(seconds=lease),
                attempts=ContentProfile.attempts + 1,
            )
            .execution_options(synchronize_session=False)
        ).rowcount
        db.session.commit()
        if taken:
            return row.sha256, row.size_bytes, row.attempts + 1
    return None


def release(sha256, size, retry_after=None):
    """Let a claimed content go (now, or after ``retry_after`` seconds), its attempt not
    counted."""
    until = utcnow() + datetime.timedelta(seconds=retry_after) if retry_after else None
    db.session.execute(
        sa.update(ContentProfile)
        .where(ContentProfile.sha256 == sha256, ContentProfile.size_bytes == size)
        .values(claimed_until=until, attempts=ContentProfile.attempts - 1)
        .execution_options(synchronize_session=False)
    )
    db.session.commit()


def profile_content(app, sha256, size, attempts, pool=None, shutdown=None):
    """Read the claimed content and record what was found; whether it was recorded."""
    started = time.monotonic()
    source = db.session.execute(
        sa.select(DatasetVersion.file_key, DatasetVersion.filename)
        .where(DatasetVersion.sha256 == sha256, DatasetVersion.size_bytes == size)
        .limit(1)
    ).first()
    db.session.commit()
    if source is None:  # every version with these bytes is gone
        db.session.execute(
            sa.delete(ContentProfile).where(
                ContentProfile.sha256 == sha256, ContentProfile.size_bytes == size
            )
        )
        db.session.commit()
        return False
    if attempts > MAX_ATTEMPTS:
        return record(sha256, size, error=f"Profiling was interrupted {MAX_ATTEMPTS} times")
    try:
        found = read_profile(app, source.file_key, source.filename, pool, shutdown)
    except (StorageUnavailable, InsufficientStorage) as exc:
        log.warning(
            "profile of %s: its file could not be fetched (%s); trying again in %s s",
            sha256[:12],
            type(exc).__name__,
            RETRY_SECONDS,
        )
        release(sha256, size, RETRY_SECONDS)
        metrics.count_profile("retry")
        return False
    except Unreadable as exc:
        done = record(sha256, size, error=str(exc))
    else:
        done = record(sha256, size, schema=found["schema"], profile=found["profile"])
    if done:
        log.info("profile of %s: %s in %.2f s", sha256[:12], done, time.monotonic() - started)
        metrics.count_profile(done)
    return bool(done)


def read_profile(app, key, name, pool=None, shutdown=None):
    """The job's ``{"schema", "profile"}`` for the stored file ``key``; :class:`Unreadable`."""

    def check():
        if shutdown is not None and shutdown.is_set():
            raise Stopped()

    config = app.config
    try:
        found = run_stored_job(
            config,
            JOB,
            {"path": key},
            {"name": name},
            config["PROFILE_TIMEOUT_SECONDS"],
            pool or own_pool(),
            check,
        )
    except FileMissing:
        raise Unreadable("The version's file is missing from storage") from None
    except isolation.JobError as exc:
        if exc.kind == "missing":
            raise Unreadable("The version's file is missing from storage") from None
        raise Unreadable(exc.message or exc.kind) from None
    except isolation.JobKilled as exc:
        raise Unreadable(KILLED.get(exc.reason, "Profiling stopped unexpectedly")) from None
    if found.get("unreadable"):
        raise Unreadable(f"The file cannot be read as a table: {found['unreadable']}")
    return found


KILLED = {
    "memory": "Profiling needs more memory than PIPELINE_MEMORY_LIMIT",
    "timeout": "Profiling took longer than PROFILE_TIMEOUT_SECONDS",
}


def record(sha256, size, schema=None, profile=None, error=None):
    """Write the outcome of a pending content: ``"ready"``, ``"failed"``, or None when it
    was not pending any more."""
    status = "failed" if error is not None else "ready"
    result = db.session.execute(
        sa.update(ContentProfile)
        .where(
            ContentProfile.sha256 == sha256,
            ContentProfile.size_bytes == size,
            ContentProfile.status == "pending",
        )
        .values(
            status=status,
            schema=schema,
            profile=profile,
            error=error,
            computed_at=utcnow(),
            claimed_until=None,
        )
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    return status if result.rowcount else None


def in_background(app, stop):
    """A thread that calls :func:`profile_pending` every ``PROFILE_SECONDS`` until ``stop`` is set
    (a Celery worker process)."""
    return Every(
        app.config["PROFILE_SECONDS"],
        lambda pool, shutdown: profile_pending_quietly(app, pool=pool, shutdown=shutdown),
        stop,
        "profiles",
    )


def profile_pending_quietly(app, **kwargs):
    """:func:`profile_pending`, its failure logged in one line (the next round retries)."""
    return quietly(lambda: profile_pending(app, **kwargs), "profiles", log)
