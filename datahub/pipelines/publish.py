"""A run's output published (datahub.pipelines.execute): in one transaction the stored
file becomes the output dataset's new version and the run succeeds, or, where the output
has checks, stays running with its version pending for the worker to check."""

import contextlib

import sqlalchemy as sa
from flask import current_app

from datahub import quotas
from datahub.app.extensions import db
from datahub.datasets import tabular
from datahub.datasets.checks.auditor import hold_audit
from datahub.datasets.event_data import record_dataset
from datahub.datasets.models import Dataset, DatasetVersion, VersionRead
from datahub.datasets.services import NewFile, add_stored_version, discard, drop_duplicate
from datahub.identity.models import User
from datahub.pipelines.engine import PipelineError
from datahub.pipelines.event_data import record_run
from datahub.pipelines.models import Run
from datahub.platform.database import utcnow
from datahub.resources import access
from datahub.resources.services import add_named, name_key

OWNER_MAY_NOT_WRITE = "Owner may no longer write the output dataset"


@contextlib.contextmanager
def _quota_errors():
    """A quota's error as the run's PipelineError."""
    config = current_app.config
    try:
        yield
    except quotas.DatasetQuotaExceeded:
        raise PipelineError(
            f"Dataset quota exceeded (QUOTA_DATASETS is {config['QUOTA_DATASETS']})"
        ) from None
    except quotas.StorageQuotaExceeded:
        raise PipelineError(
            f"Storage quota exceeded (QUOTA_STORAGE_BYTES is {config['QUOTA_STORAGE_BYTES']} bytes)"
        ) from None


def _widened_for(dataset, run, plan):
    """Whether the internal output ``dataset`` may take this run's result. Derived data is
    never wider than its sources unless its owner widens it (docs/guides/access.rst): over
    private inputs, only when its current version came from a run of the same pipeline
    that read each of them, so that the widening was of data made from them."""
    if not plan.private_inputs:
        return True
    made_by = db.session.scalar(
        sa.select(Run.id)
        .join(DatasetVersion, DatasetVersion.run_id == Run.id)
        .where(
            DatasetVersion.dataset_id == dataset.id,
            DatasetVersion.version == dataset.current_version,
            Run.pipeline_id == run.pipeline_id,
        )
    )
    if made_by is None:
        return False
    read = db.session.scalars(
        sa.select(VersionRead.dataset_id).where(VersionRead.run_id == made_by)
    )
    return plan.private_inputs <= set(read)


def publish(run_id, name, plan, stored, rows, timings, mark):
    """Add the new file as the output dataset's new version (:func:`_add_output`):
    ``(dataset id, version)`` when it is pending its checks. If the run is no longer ours,
    the owner may not write the output (datahub.resources.access) or has no room
    (datahub.quotas, under the owner's lock), the new file is removed, the previous output
    stays and the run fails (``mark``). ``rows``: its ``rows_in`` and ``rows_out``;
    ``timings``: the run's (datahub.pipelines.timings), kept on it with this phase's own."""
    rows_in = rows.get("rows_in")
    try:
        added = _add_output(run_id, name, plan, stored, rows, timings)
    except (PipelineError, sa.exc.IntegrityError) as exc:
        discard(stored)
        taken = f"the output dataset name {plan.output_name!r} was taken meanwhile"
        mark(
            status="failed",
            rows_in=rows_in,
            error=str(exc) if isinstance(exc, PipelineError) else taken,
        )
        return None
    except BaseException:
        discard(stored)
        raise
    if added is None:
        return None
    key, version, pending = added
    drop_duplicate(key, stored)
    return (version.dataset_id, version.version) if pending else None


def _add_output(run_id, name, plan, stored, rows, timings):
    """In one transaction: the new file as the output dataset's new version, and the run
    succeeded, or (checks) left running, its output pending and held for this worker to
    check: ``(key, version, pending)``. None, the new file removed, if the run is not ours."""
    stop = timings.start("publish")
    quotas.lock_user(plan.owner_id)  # first: the quotas' lock order
    run = db.session.scalar(sa.select(Run).where(Run.id == run_id).with_for_update())
    if run is None or run.status != "running" or run.worker != name:
        discard(stored)
        return None
    dataset = output_dataset(run, plan)
    suffix = tabular.SUFFIXES[plan.output_format]
    output = NewFile(
        plan.output_name[: 255 - len(suffix)] + suffix,
        tabular.CONTENT_TYPES[plan.output_format],
        plan.output_format,
    )
    with _quota_errors():
        key, version = add_stored_version(
            dataset, stored, output, created_by=plan.owner_id, run_id=run_id
        )
    db.session.flush()
    run.rows_in, run.rows_out = rows.get("rows_in"), rows.get("rows_out")
    run.output_dataset_id, run.output_version = dataset.id, version.version
    pending = version.state == "pending"
    if pending:
        hold_audit(current_app.config, version)
    else:
        run.status, run.finished_at, run.error = "succeeded", utcnow(), None
        with timings.phase("events"):
            record_run("datahub.run.succeeded", run)
    stop()
    run.timings = timings.as_json()
    db.session.commit()
    return key, version, pending


def output_dataset(run, plan):
    """The output dataset (locked), made now if there is none, that the run may write;
    else :class:`PipelineError`."""
    output_name = plan.output_name
    dataset = db.session.scalar(
        sa.select(Dataset).where(Dataset.name_key == name_key(output_name)).with_for_update()
    )
    if dataset is None:
        with _quota_errors():
            quotas.check_datasets(plan.owner_id)
        values = {
            "name": output_name,
            "description": f"Output of pipeline {plan.pipeline_name}",
            # Derived data is never wider than its sources (docs/guides/access.rst).
            "visibility": "private" if plan.private_inputs else None,
            "tags": [],
        }
        dataset = add_named(Dataset, plan.owner_id, values, ("description", "tags"))
        db.session.flush()
        record_dataset("datahub.dataset.created", dataset)
    elif dataset.owner_id != plan.owner_id:
        raise PipelineError(
            f"the output dataset name {output_name!r} belongs to another "
            "user's dataset; choose another output_dataset_name"
        )
    elif not access.may_write(db.session.get(User, plan.owner_id), dataset):
        raise PipelineError(OWNER_MAY_NOT_WRITE)
    elif dataset.visibility != "private" and not _widened_for(dataset, run, plan):
        raise PipelineError(
            f"the output dataset {output_name!r} is internal and this run reads private "
            "data it was not made from; make the output dataset private, or choose "
            "another output_dataset_name"
        )
    return dataset
