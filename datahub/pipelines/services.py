"""What can be done to pipelines and runs, independent of HTTP."""

import functools

import sqlalchemy as sa
from flask import current_app

from datahub import quotas
from datahub.app.extensions import db
from datahub.datasets.errors import DatasetNotFound
from datahub.datasets.models import Dataset, DatasetVersion
from datahub.pipelines import cycles, schedules
from datahub.pipelines.errors import (
    InvalidTrigger,
    JoinedDatasetNotFound,
    PinnedVersionNotFound,
    PipelineAlreadyRunning,
    PipelineNotFound,
    RunNotFound,
)
from datahub.pipelines.event_data import record_pipeline, record_run, record_run_by_id
from datahub.pipelines.models import ACTIVE_STATUSES, Pipeline, Run
from datahub.platform import wakeups
from datahub.platform.database import utcnow, valid_id
from datahub.platform.errors import Refused
from datahub.resources import access
from datahub.resources.services import (
    create_named,
    filter_named,
    get_or_raise,
    name_key,
    ordered,
    update_named,
)

CANCELLED_BY_USER = "cancelled by a user"
FIELDS = (
    "description",
    "source_dataset_id",
    "source_version",
    "steps",
    "output_dataset_name",
    "output_format",
    "trigger",
    "next_run_at",  # from ``trigger`` (_schedule)
    "trigger_disabled_reason",  # cleared by a changed trigger (_schedule)
)


def get_pipeline(pipeline_id, for_update=False):
    return get_or_raise(Pipeline, pipeline_id, PipelineNotFound, for_update=for_update)


def pipelines_query(args, user):
    """The pipelines a list shows, oldest first or in ``sort``'s order: filtered by ``q``,
    ``owner`` and ``source_dataset_id``."""
    query = filter_named(sa.select(Pipeline), Pipeline, args, user)
    if args.get("source_dataset_id"):
        query = query.where(Pipeline.source_dataset_id == args["source_dataset_id"])
    return ordered(query, Pipeline, args.get("sort"))


def _readable_dataset(dataset_id, user):
    dataset = db.session.get(Dataset, dataset_id) if valid_id(dataset_id) else None
    return dataset is not None and access.may_read(user, dataset)


def _require_source(values, user):
    """:class:`DatasetNotFound` for a source dataset that does not exist or ``user`` may
    not read; :class:`JoinedDatasetNotFound` for such a dataset in a join."""
    if "source_dataset_id" in values and not _readable_dataset(values["source_dataset_id"], user):
        raise DatasetNotFound()
    for position, step in enumerate(values.get("steps") or []):
        if step.get("op") == "join" and not _readable_dataset(step["dataset_id"], user):
            raise JoinedDatasetNotFound(position)
        if step.get("op") == "join" and step.get("version") is not None:
            if db.session.get(DatasetVersion, (step["dataset_id"], step["version"])) is None:
                raise PinnedVersionNotFound(position)


def _require_pinned_source(pipeline, values):
    """A pinned ``source_version`` must be a version of the (new or kept) source."""
    number = values.get("source_version", pipeline.source_version if pipeline else None)
    source = values.get("source_dataset_id", pipeline.source_dataset_id if pipeline else None)
    if number is not None and (
        source is None or db.session.get(DatasetVersion, (source, number)) is None
    ):
        raise PinnedVersionNotFound()


# What the pipeline reads and writes: changed only by who may read every input and write
# the output dataset (_require_inputs_and_target).
DATA_FIELDS = (
    "source_dataset_id",
    "source_version",
    "steps",
    "output_dataset_name",
    "output_format",
)


def _require_inputs_and_target(pipeline, values, user):
    """A change of what ``pipeline`` reads or writes: ``user`` must read every input of
    the pipeline as it will be, kept ones too (else 404 ``Dataset not found``), and write
    the existing dataset its output name names, if any (404 unless readable, else
    :class:`Refused`). Runs read and write with the owner's rights: without this a
    ``write`` grantee could aim them at the owner's other datasets."""
    if not set(DATA_FIELDS) & values.keys():
        return
    source = values.get("source_dataset_id", pipeline.source_dataset_id)
    steps = values["steps"] if "steps" in values else pipeline.steps or []
    inputs = [source] if source is not None else []
    inputs += [step["dataset_id"] for step in steps if step.get("op") == "join"]
    if not all(_readable_dataset(dataset_id, user) for dataset_id in inputs):
        raise DatasetNotFound()
    name = values.get("output_dataset_name", pipeline.output_dataset_name)
    target = db.session.scalar(sa.select(Dataset).where(Dataset.name_key == name_key(name)))
    if target is not None and not access.may_read(user, target):
        raise DatasetNotFound()
    if target is not None and not access.may_write(user, target):
        raise Refused()


def _schedule(values):
    """A changed trigger's next due time (None unless it is a schedule); it works again
    if the sweep had turned it off."""
    if "trigger" in values:
        try:
            values["next_run_at"] = schedules.next_due(values["trigger"], utcnow())
        except schedules.NeverDue:
            raise InvalidTrigger(f"trigger {schedules.NEVER_DUE}") from None
        values["trigger_disabled_reason"] = None


def create_pipeline(owner, values):
    def check(values):
        _require_source(values, owner)
        _require_pinned_source(None, values)
        _schedule(values)
        cycles.require_no_cycle(None, values, owner)

    # Any other integrity error at the commit: the source dataset was deleted meanwhile.
    return create_named(
        Pipeline,
        owner,
        values,
        FIELDS,
        check=check,
        otherwise=DatasetNotFound,
        record=functools.partial(record_pipeline, "datahub.pipeline.created"),
    )


def update_pipeline(pipeline, values, user):
    """``user`` must be able to read the datasets it names, and to change what the
    pipeline reads or writes, every input and the output dataset
    (:func:`_require_inputs_and_target`); runs read them with the owner's rights
    (datahub.pipelines.plans)."""

    def check(values):
        _require_source(values, user)
        _require_inputs_and_target(pipeline, values, user)
        _require_pinned_source(pipeline, values)
        _schedule(values)
        cycles.require_no_cycle(pipeline, values, user)

    return update_named(
        pipeline,
        values,
        FIELDS,
        check=check,
        otherwise=DatasetNotFound,
        record=functools.partial(record_pipeline, "datahub.pipeline.updated"),
    )


def delete_pipeline(pipeline):
    """Delete the pipeline and its runs. A worker busy with one of them notices at its
    next heartbeat and discards its output; the output dataset stays."""
    record_pipeline("datahub.pipeline.deleted", pipeline)
    db.session.delete(pipeline)
    db.session.commit()


def start_run(pipeline, triggered_by="user"):
    """Queue a run. The partial unique index on active runs refuses a second one, also
    when several requests on several hosts race: that IntegrityError is the 409. Once the
    row is committed: with a broker, its task is sent; without, the worker processes of
    this host are woken (the others find it at their next poll).

    Under the owner's lock (datahub.quotas): 409 if this pipeline has an active run (it
    wins over the quota), else 429 ``Too many queued runs`` when the owner has
    ``QUOTA_QUEUED_RUNS`` runs queued or running."""
    quotas.lock_user(pipeline.owner_id)
    active = sa.select(Run.id).where(
        Run.pipeline_id == pipeline.id, Run.status.in_(ACTIVE_STATUSES)
    )
    if db.session.scalar(active.limit(1)) is not None:
        raise PipelineAlreadyRunning()
    quotas.check_queued_runs(pipeline.owner_id)
    run = Run(
        pipeline_id=pipeline.id, status="queued", created_at=utcnow(), triggered_by=triggered_by
    )
    db.session.add(run)
    record_run("datahub.run.queued", run)
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        if db.session.get(Pipeline, pipeline.id) is None:
            raise PipelineNotFound() from None
        raise PipelineAlreadyRunning() from None
    app = current_app._get_current_object()
    if app.extensions.get("celery") is not None:
        from datahub.pipelines.tasks import dispatch

        dispatch(app, run.id)
    else:
        wakeups.notify(app.instance_path)
    return run


def runs_query(pipeline):
    """The pipeline's runs, newest first."""
    return sa.select(Run).where(Run.pipeline_id == pipeline.id).order_by(Run.id.desc())


def get_run(pipeline, run_id):
    if not valid_id(run_id):
        raise RunNotFound()
    run = db.session.get(Run, run_id)
    if run is None or run.pipeline_id != pipeline.id:
        raise RunNotFound()
    return run


def cancel_run(run):
    """Cancel a queued or running run; a finished run is answered as it is.

    The status changes at once (which also lets a new run start); a worker executing the
    run sees it at its next heartbeat, stops, and throws its partial output away.
    """
    now = utcnow()
    result = db.session.execute(
        sa.update(Run)
        .where(Run.id == run.id, Run.status.in_(ACTIVE_STATUSES))
        .values(status="cancelled", finished_at=now, error=CANCELLED_BY_USER)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount:
        record_run_by_id("datahub.run.cancelled", run.id)
    db.session.commit()
    db.session.refresh(run)
    return run, bool(result.rowcount)
