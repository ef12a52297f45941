"""A dataset's checks, and write, audit, publish: a version made while its dataset has
checks is ``pending`` until they have run (datahub.datasets.checks.auditor), then
``published`` or ``quarantined``. Only publishing makes a version current and says it
was created (``datahub.dataset.version.created``: triggers, webhooks); a quarantined one
says so (``datahub.dataset.version.quarantined``) and waits for a manager."""

import sqlalchemy as sa
from flask import current_app
from sqlalchemy import event

from datahub.app.extensions import db
from datahub.datasets.checks.errors import VersionNotQuarantined
from datahub.datasets.checks.models import DatasetChecks, VersionAudit
from datahub.datasets.event_data import record_version, record_version_quarantined
from datahub.datasets.models import Dataset, DatasetVersion
from datahub.platform import wakeups
from datahub.platform.database import utcnow

_AUDITS = "datahub_audits"  # the session made a version pending: wake the workers


def checks_of(dataset_id):
    """The dataset's checks (a list, maybe empty)."""
    row = db.session.get(DatasetChecks, dataset_id)
    return list(row.checks) if row is not None else []


def set_checks(dataset, checks):
    """Replace the dataset's checks (committed); the versions made from now on are
    checked against them."""
    row = db.session.get(DatasetChecks, dataset.id)
    if not checks:
        if row is not None:
            db.session.delete(row)
    elif row is None:
        db.session.add(DatasetChecks(dataset_id=dataset.id, checks=checks, updated_at=utcnow()))
    else:
        row.checks, row.updated_at = checks, utcnow()
    dataset.updated_at = utcnow()
    db.session.commit()
    return {"checks": checks}


def admit(dataset, version, make_current):
    """In the transaction that adds ``version`` to (locked) ``dataset``: published at once
    when the dataset has no checks, else pending with an audit for a worker."""
    checks = checks_of(dataset.id)
    if not checks:
        publish(dataset, version, make_current)
        return
    version.state = "pending"
    db.session.info[_AUDITS] = True
    db.session.add(
        VersionAudit(
            dataset_id=dataset.id,
            version=version.version,
            status="pending",
            checks=checks,
            requested_at=utcnow(),
            attempts=0,
        )
    )


def publish(dataset, version, make_current):
    """``version`` is published: current if it is the newest published one, and said to be
    created."""
    version.state = "published"
    if version.version > (dataset.current_version or 0):
        make_current(dataset, version)
    record_version(version)


def failed_checks(results):
    """The names of the checks whose failure quarantines the version."""
    return [
        result["name"]
        for result in results
        if result["severity"] == "error" and result["status"] in ("failed", "error")
    ]


def conclude(dataset, version, results, make_current):
    """Record the checks' ``results`` of a pending ``version`` (its dataset locked):
    published, or quarantined; its state."""
    audit = db.session.get(VersionAudit, (version.dataset_id, version.version))
    audit.status, audit.results = "done", results
    audit.checked_at, audit.claimed_until = utcnow(), None
    if failed_checks(results):
        version.state = "quarantined"
        record_version_quarantined(version, failed_checks(results))
    else:
        publish(dataset, version, make_current)
    return version.state


def publish_anyway(dataset, version, user_id, make_current):
    """A manager publishes a quarantined version (committed)."""
    if version.state != "quarantined":
        raise VersionNotQuarantined()
    audit = db.session.get(VersionAudit, (version.dataset_id, version.version))
    if audit is not None:
        audit.published_by = user_id
    publish(dataset, version, make_current)
    db.session.commit()
    return version


def results_of(version):
    """``{"state", "checked_at", "published_by", "results"}`` of a version."""
    audit = db.session.get(VersionAudit, (version.dataset_id, version.version))
    return {
        "state": version.state,
        "checked_at": audit.checked_at if audit is not None else None,
        "published_by": audit.published_by if audit is not None else None,
        "results": (audit.results or []) if audit is not None else [],
    }


def previous_published(version):
    """The newest published version before ``version``, or None."""
    return db.session.scalar(
        sa.select(DatasetVersion)
        .where(
            DatasetVersion.dataset_id == version.dataset_id,
            DatasetVersion.version < version.version,
            DatasetVersion.state == "published",
        )
        .order_by(DatasetVersion.version.desc())
        .limit(1)
    )


def locked_dataset(dataset_id):
    return db.session.scalar(sa.select(Dataset).where(Dataset.id == dataset_id).with_for_update())


@event.listens_for(db.session, "after_commit")
def _wake_workers(session):
    """A version made pending: the workers of this host run its checks now, not at their
    next poll."""
    if session.info.pop(_AUDITS, False):
        wakeups.notify(current_app.instance_path)


@event.listens_for(db.session, "after_rollback")
def _forget(session):
    session.info.pop(_AUDITS, None)
