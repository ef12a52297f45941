"""Pipelines triggered by new versions that feed each other (docs/guides/events.rst,
"Triggers"): A's output is B's input and B's output A's would make each run the other
forever.

The rule: a new version does not trigger a pipeline that is already in the version's
*triggered lineage*: the pipeline of the run that made it and, through the versions that
run read, of every run before it that a new version triggered (a run a user or a schedule
started begins a lineage). A pipeline's own output never triggers it, and a loop of any
length ends after one round. A lineage of more than :data:`MAX_LINEAGE` runs triggers
nothing. A pipeline whose ``new_version`` trigger closes such a loop through pipelines the
caller may read is refused when it is created or changed (:func:`require_no_cycle`)."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset, DatasetVersion, VersionRead
from datahub.pipelines.errors import TriggerCycle
from datahub.pipelines.models import Pipeline, Run
from datahub.pipelines.schedules import NEW_VERSION, on_new_version
from datahub.resources import access
from datahub.resources.services import name_key

MAX_LINEAGE = 64


def inputs_of(source_dataset_id, steps):
    """The ids of the datasets a pipeline reads: its source and what it joins."""
    return {source_dataset_id} | {
        step.get("dataset_id") for step in steps or () if step.get("op") == "join"
    }


def triggered_lineage(run_id):
    """The ids of the pipelines in the triggered lineage of the version run ``run_id``
    made (see above); None when it is longer than :data:`MAX_LINEAGE` runs."""
    pipelines, seen, todo = set(), set(), [run_id]
    while todo:
        run_id = todo.pop()
        if run_id in seen:
            continue
        if len(seen) >= MAX_LINEAGE:
            return None
        seen.add(run_id)
        run = db.session.execute(
            sa.select(Run.pipeline_id, Run.triggered_by).where(Run.id == run_id)
        ).first()
        if run is None:  # deleted since: the lineage is not known further back
            continue
        pipelines.add(run.pipeline_id)
        if run.triggered_by == NEW_VERSION:
            todo.extend(_makers_of_reads(run_id))
    return pipelines


def _makers_of_reads(run_id):
    """The runs that made the versions run ``run_id`` read."""
    made = sa.and_(
        DatasetVersion.dataset_id == VersionRead.dataset_id,
        DatasetVersion.version == VersionRead.version,
    )
    return db.session.scalars(
        sa.select(DatasetVersion.run_id)
        .join(VersionRead, made)
        .where(VersionRead.run_id == run_id, DatasetVersion.run_id.is_not(None))
    ).all()


def require_no_cycle(pipeline, values, caller):
    """:class:`TriggerCycle` if the pipeline, as ``values`` change it (``pipeline`` None:
    as created by ``caller``), has a ``new_version`` trigger and its output reaches its
    own inputs through other such pipelines that ``caller`` may read (the others are
    stopped at run time: naming them would tell what the caller may not read)."""

    def now(field):
        return values[field] if field in values else getattr(pipeline, field, None)

    if now("trigger") != {"on": NEW_VERSION} or not any(f in values for f in _CYCLE_FIELDS):
        return
    own_id = pipeline.id if pipeline is not None else None
    owner_id = pipeline.owner_id if pipeline is not None else caller.id
    inputs = inputs_of(now("source_dataset_id"), now("steps"))
    others = _triggered_pipelines(caller, own_id)
    path = _path_back(_output_of(owner_id, now("output_dataset_name")), inputs, others)
    if path:
        field = next((f for f in _CYCLE_FIELDS if f in values), "trigger")
        raise TriggerCycle(field, path)


_CYCLE_FIELDS = ("trigger", "output_dataset_name", "source_dataset_id", "steps")


def _triggered_pipelines(caller, own_id):
    """``{id: (input ids, output id)}`` of the other pipelines with a working
    ``new_version`` trigger that ``caller`` may read."""
    query = sa.select(
        Pipeline.id,
        Pipeline.owner_id,
        Pipeline.source_dataset_id,
        Pipeline.steps,
        Pipeline.trigger,
        Pipeline.output_dataset_name,
    ).where(Pipeline.trigger.is_not(None), Pipeline.trigger_disabled_reason.is_(None))
    rows = db.session.execute(access.filter_readable(query, Pipeline, caller)).all()
    return {
        row.id: (inputs_of(row.source_dataset_id, row.steps), output)
        for row in rows
        if on_new_version(row.trigger)
        and row.id != own_id
        and (output := _output_of(row.owner_id, row.output_dataset_name)) is not None
    }


def _output_of(owner_id, output_name):
    """The id of the dataset a run of the owner's writes to ``output_name``: None until
    it exists, or when it is someone else's (the run fails)."""
    if not isinstance(output_name, str):
        return None
    return db.session.scalar(
        sa.select(Dataset.id).where(
            Dataset.name_key == name_key(output_name), Dataset.owner_id == owner_id
        )
    )


def _path_back(start, inputs, others):
    """The ids of the pipelines through which dataset ``start`` reaches one of ``inputs``
    (breadth first, the shortest), or None."""
    if start is None:
        return None
    paths, seen = {start: []}, {start}
    while paths:
        following = {}
        for dataset_id, path in paths.items():
            for pipeline_id, (reads, output) in others.items():
                if dataset_id not in reads:
                    continue
                if output in inputs:
                    return [*path, pipeline_id]
                if output not in seen:
                    seen.add(output)
                    following[output] = [*path, pipeline_id]
        paths = following
    return None
