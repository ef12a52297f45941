"""A dataset's versions, independent of HTTP (docs/guides/versions.rst).

Every file a dataset is given (an upload, a run's output, a restore) is a new version,
numbered from 1 per dataset, never changed but for ``pinned`` and ``message``. The newest
is the current one, whose file the dataset's ``file`` describes (the ``file_*`` columns
of the dataset are its copy, so that lists and downloads read one row). Versions of one
dataset with the same bytes share one stored object.

Every change locks the dataset's row first; an object is deleted only after the commit
that removed the last version referring to it, and only if no version still does (a
process killed in between leaves an unreferenced object, which the storage sweep at
worker start removes: datahub.datasets.storage).
"""

import logging

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.checks.services import admit
from datahub.datasets.errors import VersionIsCurrent, VersionNotFound, VersionUsedByRun
from datahub.datasets.models import Dataset, DatasetVersion, VersionRead
from datahub.datasets.profiles.services import request_profile
from datahub.datasets.storage import delete_quietly
from datahub.platform.database import utcnow, valid_id

log = logging.getLogger("datahub.versions")

# The runs table as far as pins need it (datasets do not import pipelines): a run that is
# running still reads its inputs, a succeeded one made its output from them. A failed or
# cancelled run's reads stay recorded (its ``inputs``) but keep nothing.
_runs = sa.table("runs", sa.column("id"), sa.column("status"))
PINNING_STATUSES = ("running", "succeeded")


def _pinning_reads():
    """The reads of runs that keep what they read."""
    return (
        sa.select(VersionRead.version)
        .join(_runs, _runs.c.id == VersionRead.run_id)
        .where(_runs.c.status.in_(PINNING_STATUSES))
    )


def versions_query(dataset_id):
    """The versions of a dataset, newest first."""
    return (
        sa.select(DatasetVersion)
        .where(DatasetVersion.dataset_id == dataset_id)
        .order_by(DatasetVersion.version.desc())
    )


def get_version(dataset_id, number):
    """Version ``number`` of the dataset, else :class:`VersionNotFound`."""
    row = db.session.get(DatasetVersion, (dataset_id, number)) if valid_id(number) else None
    if row is None:
        raise VersionNotFound()
    return row


def same_content(dataset_id, sha256, size):
    """The stored key of a version of the dataset with these bytes, or None."""
    return db.session.scalar(
        sa.select(DatasetVersion.file_key)
        .where(
            DatasetVersion.dataset_id == dataset_id,
            DatasetVersion.sha256 == sha256,
            DatasetVersion.size_bytes == size,
        )
        .limit(1)
    )


def add_version(dataset, file_key, sha256, size, filename, content_type, fmt, **made):
    """A new version of ``dataset`` (locked, flushed), made current (uncommitted), or
    pending while the dataset's checks run on it (datahub.datasets.checks).
    ``made``: ``created_by``, and ``run_id`` and ``message`` when known."""
    newest = db.session.scalar(
        sa.select(sa.func.max(DatasetVersion.version)).where(
            DatasetVersion.dataset_id == dataset.id
        )
    )
    version = DatasetVersion(
        dataset_id=dataset.id,
        version=max(newest or 0, dataset.current_version or 0) + 1,
        file_key=file_key,
        sha256=sha256,
        size_bytes=size,
        filename=filename,
        content_type=content_type,
        format=fmt,
        created_at=utcnow(),
        created_by=made.get("created_by"),
        run_id=made.get("run_id"),
        message=made.get("message"),
        pinned=False,
        state="published",
    )
    db.session.add(version)
    request_profile(version)
    admit(dataset, version, make_current)  # published now, or once its checks pass
    return version


def make_current(dataset, version):
    """Point ``dataset`` at ``version``: its number and the copy of its file."""
    dataset.current_version = version.version
    dataset.file_key = version.file_key
    dataset.file_name = version.filename
    dataset.file_content_type = version.content_type
    dataset.file_size = version.size_bytes
    dataset.file_sha256 = version.sha256
    dataset.file_uploaded_at = dataset.updated_at = version.created_at


def update_version(version, values):
    """Pin or unpin, or change the message (committed)."""
    for field in ("pinned", "message"):
        if field in values:
            setattr(version, field, values[field])
    db.session.commit()
    return version


def restore_version(dataset, version, user_id, message=None):
    """A new, current version with ``version``'s content and no bytes copied."""
    restored = add_version(
        dataset,
        version.file_key,
        version.sha256,
        version.size_bytes,
        version.filename,
        version.content_type,
        version.format,
        created_by=user_id,
        message=message if message is not None else f"Restored from version {version.version}",
    )
    db.session.commit()
    return restored


def is_read_by_a_run(dataset_id, number):
    """Whether a running or succeeded run read this version."""
    return (
        db.session.scalar(
            _pinning_reads()
            .where(VersionRead.dataset_id == dataset_id, VersionRead.version == number)
            .limit(1)
        )
        is not None
    )


def delete_version(dataset, version, force=False):
    """Delete a version that is not current (:class:`VersionIsCurrent`) and that no
    running or succeeded run read (:class:`VersionUsedByRun`, unless ``force``); its
    object goes once no version refers to it. ``dataset`` is locked."""
    if version.version == dataset.current_version:
        raise VersionIsCurrent()
    if not force and is_read_by_a_run(dataset.id, version.version):
        raise VersionUsedByRun()
    key = version.file_key
    db.session.delete(version)
    db.session.commit()
    drop_unreferenced([key])


def drop_unreferenced(keys):
    """After the commit: delete each of ``keys`` that no version refers to any more."""
    for key in set(keys):
        if key and not db.session.scalar(
            sa.select(sa.exists().where(DatasetVersion.file_key == key))
        ):
            delete_quietly(key)
    db.session.rollback()


def prunable(dataset_id, current, keep):
    """The versions of one dataset that retention removes: past the ``keep`` newest, not
    current, not pinned, not pending, and read by no running or succeeded run."""
    read = _pinning_reads().where(VersionRead.dataset_id == dataset_id)
    kept = (
        sa.select(DatasetVersion.version)
        .where(DatasetVersion.dataset_id == dataset_id)
        .order_by(DatasetVersion.version.desc())
        .limit(keep)
    )
    return db.session.scalars(
        sa.select(DatasetVersion).where(
            DatasetVersion.dataset_id == dataset_id,
            DatasetVersion.version != current,
            DatasetVersion.pinned.is_(False),
            DatasetVersion.state != "pending",  # its checks are still to run
            DatasetVersion.version.not_in(read),
            DatasetVersion.version.not_in(kept.scalar_subquery()),
        )
    ).all()


def prune_versions(keep):
    """Retention (``VERSIONS_KEEP``): remove, dataset by dataset, the versions
    :func:`prunable` names, then their objects; how many versions were removed."""
    if keep is None:
        return 0
    keep = max(int(keep), 1)
    crowded = db.session.scalars(
        sa.select(DatasetVersion.dataset_id)
        .group_by(DatasetVersion.dataset_id)
        .having(sa.func.count() > keep)
    ).all()
    db.session.rollback()
    removed = 0
    for dataset_id in crowded:
        dataset = db.session.scalar(
            sa.select(Dataset).where(Dataset.id == dataset_id).with_for_update()
        )
        if dataset is None:
            db.session.rollback()
            continue
        old = prunable(dataset_id, dataset.current_version, keep)
        keys = [version.file_key for version in old]
        for version in old:
            db.session.delete(version)
        db.session.commit()
        removed += len(old)
        drop_unreferenced(keys)
    if removed:
        log.info("retention removed %d version(s) (VERSIONS_KEEP %d)", removed, keep)
    return removed


def record_reads(run_id, reads):
    """Run ``run_id`` reads these ``(dataset_id, version)`` (uncommitted)."""
    for dataset_id, number in dict.fromkeys(reads):
        db.session.add(VersionRead(run_id=run_id, dataset_id=dataset_id, version=number))


def reads_of(run_id):
    """``[{"dataset_id", "version"}]`` a run read, in dataset order."""
    rows = db.session.execute(
        sa.select(VersionRead.dataset_id, VersionRead.version)
        .where(VersionRead.run_id == run_id)
        .order_by(VersionRead.dataset_id, VersionRead.version)
    )
    return [{"dataset_id": dataset_id, "version": number} for dataset_id, number in rows]
