"""What a run reads and computes, decided as it starts (docs/guides/versions.rst, "Runs
and their versions"): the :class:`RunPlan` read from the database with its owner
re-authorised, the exact input versions, the run's fingerprint, and an earlier run whose
output it may reuse."""

import hashlib
import json
from dataclasses import dataclass, field

import duckdb
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset, DatasetVersion
from datahub.identity import permissions
from datahub.identity.models import User
from datahub.pipelines.engine import ENGINE_VERSION, PipelineError
from datahub.pipelines.models import Run
from datahub.resources import access
from datahub.resources.services import name_key

OWNER_MAY_NOT_RUN = "Owner may no longer run this pipeline"


@dataclass
class RunPlan:
    """What a run needs from the database, read in one short transaction."""

    steps: list
    owner_id: str
    pipeline_name: str
    output_name: str
    output_format: str
    source_key: str
    joins: dict = field(default_factory=dict)  # dataset id → its file's storage key
    names: dict = field(default_factory=dict)  # storage key → what a user calls the file
    private_inputs: set = field(default_factory=set)  # ids of inputs that are private
    reads: list = field(default_factory=list)  # (dataset id, version) of every input


def _may_run(owner):
    return (
        owner is not None
        and owner.is_active
        and bool(set(owner.roles or []) & permissions.CREATE_ROLES)
    )


def plan_run(pipeline):
    """The :class:`RunPlan`, its owner re-authorised as the run starts: an owner who is
    inactive, no longer an editor or admin, or can no longer read an input fails the run
    (``OWNER_MAY_NOT_RUN``). An input that is missing, or that the owner may no longer
    read (datahub.resources.access), → PipelineError, told as missing."""
    owner = db.session.get(User, pipeline.owner_id)
    if not _may_run(owner):
        raise PipelineError(OWNER_MAY_NOT_RUN)
    source = _input(pipeline.source_dataset_id, owner) if pipeline.source_dataset_id else None
    if source is None:
        raise PipelineError("the source dataset no longer exists")
    source_key, source_version = _input_file(source, pipeline.source_version, "the source dataset")
    plan = RunPlan(
        steps=list(pipeline.steps or []),
        owner_id=pipeline.owner_id,
        pipeline_name=pipeline.name,
        output_name=pipeline.output_dataset_name,
        output_format=pipeline.output_format or "csv",
        source_key=source_key,
        names={source_key: "the source file"},
        reads=[(source.id, source_version)],
    )
    if source.visibility == "private":
        plan.private_inputs.add(source.id)
    for position, step in enumerate(plan.steps):
        if step.get("op") != "join":
            continue
        other = _input(step["dataset_id"], owner)
        where = f"step {position} (join)"
        if other is None:
            raise PipelineError(f"{where}: dataset {step['dataset_id']} does not exist")
        key, number = _input_file(other, step.get("version"), f"{where}: dataset {other.id}")
        plan.joins[other.id] = key
        plan.names[key] = f"dataset {other.id}'s file"
        plan.reads.append((other.id, number))
        if other.visibility == "private":
            plan.private_inputs.add(other.id)
    return plan


def _input_file(dataset, pinned, what):
    """``(key, version)`` of the input ``dataset``: version ``pinned``, else its current."""
    if pinned is None:
        if dataset.file_key is None:
            raise PipelineError(f"{what} has no file")
        return dataset.file_key, dataset.current_version
    version = db.session.get(DatasetVersion, (dataset.id, pinned))
    if version is None:
        raise PipelineError(f"{what} has no version {pinned}")
    return version.file_key, pinned


def fingerprint(plan):
    """What a run computes: its steps, output and format, the engine, and the exact
    versions it reads. Two runs with one fingerprint make the same output."""
    definition = {
        "steps": plan.steps,
        "output": name_key(plan.output_name),
        "format": plan.output_format,
        "reads": [list(read) for read in plan.reads],
        "engine": f"duckdb {duckdb.__version__}, steps {ENGINE_VERSION}",
    }
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def reusable(plan, run_id, digest):
    """The earlier succeeded run with this fingerprint whose output is still the output
    dataset's current version (owned by the pipeline's owner), or None."""
    earlier = db.session.scalar(
        sa.select(Run)
        .where(
            Run.fingerprint == digest,
            Run.id != run_id,
            Run.status == "succeeded",
            Run.output_version.is_not(None),
        )
        .order_by(Run.id.desc())
        .limit(1)
    )
    if earlier is None:
        return None
    output = db.session.get(Dataset, earlier.output_dataset_id)
    if (
        output is None
        or output.owner_id != plan.owner_id
        or output.current_version != earlier.output_version
        or output.name_key != name_key(plan.output_name)
    ):
        return None
    return earlier


def _input(dataset_id, owner):
    """An input dataset the run's ``owner`` may read (else None), its row share-locked
    until the run's reads are recorded: its current version cannot be deleted in between
    (datasets.versions.delete_version)."""
    dataset = db.session.get(Dataset, dataset_id, with_for_update={"read": True})
    return dataset if dataset is not None and access.may_read(owner, dataset) else None
