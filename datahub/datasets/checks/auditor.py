"""The worker's side of write, audit, publish: a pipeline worker (woken when a version is
made pending on its host, else every ``CHECKS_SECONDS``), or a thread of a Celery worker,
takes the pending audits, oldest first, runs each version's checks in an isolated process
(datahub.datasets.checks.job: the pipelines' memory limit and ``CHECKS_TIMEOUT_SECONDS``),
and publishes or quarantines the version. A run that made a pending output audits it
itself (:func:`audit_now`) and fails when it is quarantined.

A worker holds an audit while it runs it (``claimed_until``, as profiles are held): one
killed meanwhile leaves the version pending, and another worker (or the same, restarted)
runs its checks again later; never is a version published unchecked. An audit taken
``MAX_ATTEMPTS`` times without an answer quarantines its version (``error`` results).
"""

import datetime
import logging

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.checks import services
from datahub.datasets.checks.models import VersionAudit
from datahub.datasets.models import DatasetVersion
from datahub.datasets.profiles.services import content_of
from datahub.datasets.stored_jobs import Every, FileMissing, own_pool, quietly, run_stored_job
from datahub.datasets.versions import make_current
from datahub.platform import isolation
from datahub.platform.database import isoformat, utcnow
from datahub.platform.errors import InsufficientStorage, StorageUnavailable

log = logging.getLogger("datahub.checks")

TYPE = "type"  # a column's (and a check's) key: its kind
BATCH = 4
JOB = "checks"  # datahub.app.jobs
MAX_ATTEMPTS = 3
CLAIM_EXTRA_SECONDS = 60
RETRY_SECONDS = 60
KILLED = {
    "memory": "Checking needs more memory than PIPELINE_MEMORY_LIMIT",
    "timeout": "Checking took longer than CHECKS_TIMEOUT_SECONDS",
}


class Stopped(Exception):
    """The worker is shutting down: the audit in progress is abandoned (still pending)."""


def audit_pending(app, limit=BATCH, pool=None, shutdown=None):
    """Run the checks of at most ``limit`` pending versions; how many were concluded."""
    with app.app_context():
        done = 0
        while done < limit and not (shutdown is not None and shutdown.is_set()):
            claimed = claim(app.config)
            if claimed is None:
                break
            try:
                if audit_claimed(app, *claimed, pool=pool, shutdown=shutdown):
                    done += 1
            except Stopped:
                release(*claimed[:2])
                break
        return done


def _claimable(now):
    return sa.and_(
        VersionAudit.status == "pending",
        sa.or_(VersionAudit.claimed_until.is_(None), VersionAudit.claimed_until < now),
    )


def claim(config, dataset_id=None, version=None):
    """``(dataset_id, version, attempts)`` of a pending audit this worker now holds (that
    one, when given), or None."""
    now = utcnow()
    until = now + datetime.timedelta(
        seconds=float(config["CHECKS_TIMEOUT_SECONDS"]) + CLAIM_EXTRA_SECONDS
    )
    for _ in range(5):  # another worker may take the same row first
        query = sa.select(VersionAudit.dataset_id, VersionAudit.version, VersionAudit.attempts)
        query = query.where(_claimable(now)).order_by(VersionAudit.requested_at).limit(1)
        if dataset_id is not None:
            query = query.where(
                VersionAudit.dataset_id == dataset_id, VersionAudit.version == version
            )
        row = db.session.execute(query).first()
        if row is None:
            db.session.commit()
            return None
        taken = db.session.execute(
            sa.update(VersionAudit)
            .where(
                VersionAudit.dataset_id == row.dataset_id,
                VersionAudit.version == row.version,
                _claimable(now),
            )
            .values(claimed_until=until, attempts=VersionAudit.attempts + 1)
            .execution_options(synchronize_session=False)
        ).rowcount
        db.session.commit()
        if taken:
            return row.dataset_id, row.version, row.attempts + 1
    return None


def release(dataset_id, version, retry_after=None):
    until = utcnow() + datetime.timedelta(seconds=retry_after) if retry_after else None
    db.session.execute(
        sa.update(VersionAudit)
        .where(VersionAudit.dataset_id == dataset_id, VersionAudit.version == version)
        .values(claimed_until=until, attempts=VersionAudit.attempts - 1)
        .execution_options(synchronize_session=False)
    )
    db.session.commit()


def hold_audit(config, version):
    """In the transaction that made ``version`` pending: its audit is held by this worker
    (a run that checks its own output), as :func:`claim` would hold it."""
    audit = db.session.get(VersionAudit, (version.dataset_id, version.version))
    audit.claimed_until = utcnow() + datetime.timedelta(
        seconds=float(config["CHECKS_TIMEOUT_SECONDS"]) + CLAIM_EXTRA_SECONDS
    )
    audit.attempts = 1


def audit_now(app, dataset_id, version, pool=None):
    """Run the checks of this pending version now (a run's output); its state, or None
    when another worker holds it."""
    claimed = claim(app.config, dataset_id, version)
    if claimed is None:
        return None
    return audit_claimed(app, *claimed, pool=pool)


def audit_claimed(app, dataset_id, number, attempts, pool=None, shutdown=None):
    """Run the checks of a claimed audit and conclude it; the version's state, or None."""
    audit = db.session.get(VersionAudit, (dataset_id, number))
    version = db.session.get(DatasetVersion, (dataset_id, number))
    if audit is None or version is None:
        db.session.rollback()
        return None
    checks = list(audit.checks)
    if attempts > MAX_ATTEMPTS:
        results = _all_error(checks, f"Checking was interrupted {MAX_ATTEMPTS} times")
    else:
        try:
            results = _results(app, version, checks, pool or own_pool(), shutdown)
        except (StorageUnavailable, InsufficientStorage) as exc:
            log.warning(
                "checks of dataset %s version %s: a file could not be fetched (%s); trying "
                "again in %s s",
                dataset_id,
                number,
                type(exc).__name__,
                RETRY_SECONDS,
            )
            release(dataset_id, number, RETRY_SECONDS)
            return None
    return _conclude(dataset_id, number, results)


def _conclude(dataset_id, number, results):
    dataset = services.locked_dataset(dataset_id)
    version = db.session.get(DatasetVersion, (dataset_id, number), populate_existing=True)
    if dataset is None or version is None or version.state != "pending":
        db.session.rollback()
        return None
    state = services.conclude(dataset, version, results, make_current)
    db.session.commit()
    log.info("checks of dataset %s version %s: %s", dataset_id, number, state)
    return state


def _all_error(checks, message):
    return [
        {
            "name": check["name"],
            "type": check[TYPE],
            "severity": check.get("severity", "error"),
            "status": "error",
            "failing_rows": None,
            "message": message,
            "sample": [],
        }
        for check in checks
    ]


def _results(app, version, checks, pool, shutdown):
    files, args = {"path": version.file_key}, {"name": version.filename, "checks": checks}
    args["now"], args["previous_rows"] = isoformat(utcnow()), None
    if any(check[TYPE] == "row_count_change" for check in checks):
        previous = services.previous_published(version)
        content = content_of(previous) if previous is not None else None
        if content is not None and content.schema is not None:
            args["previous_rows"] = content.schema["rows"]
        elif previous is not None:
            files["previous_path"] = previous.file_key
    db.session.commit()  # nothing is held while the checks run

    def check():
        if shutdown is not None and shutdown.is_set():
            raise Stopped()

    seconds = app.config["CHECKS_TIMEOUT_SECONDS"]
    try:
        return run_stored_job(app.config, JOB, files, args, seconds, pool, check)["results"]
    except FileMissing:
        return _all_error(checks, "The version's file is missing from storage")
    except isolation.JobError as exc:
        return _all_error(checks, exc.message or exc.kind)
    except isolation.JobKilled as exc:
        return _all_error(checks, KILLED.get(exc.reason, "Checking stopped unexpectedly"))


def in_background(app, stop):
    """A thread that calls :func:`audit_pending` every ``CHECKS_SECONDS`` until ``stop`` is set
    (a Celery worker process)."""
    return Every(
        app.config["CHECKS_SECONDS"],
        lambda pool, shutdown: audit_pending_quietly(app, pool=pool, shutdown=shutdown),
        stop,
        "checks",
    )


def audit_pending_quietly(app, **kwargs):
    """:func:`audit_pending`, its failure logged in one line (the next round retries)."""
    return quietly(lambda: audit_pending(app, **kwargs), "checks", log)
