"""Lineage: which runs made a version of a dataset and from which versions, and what was
made from it (docs/guides/versions.rst, "Lineage"). A graph of version and run nodes,
walked breadth first from one version, upstream (a version ← the run that made it ← the
versions it read) and downstream (a version → the runs that read it → the versions they
made), ``depth`` runs away at most. One query per step and direction, on indexes.

Versions of datasets, and runs of pipelines, that the viewer may not read are ``hidden``
nodes (docs/guides/access.rst): the graph keeps its shape, the names and ids are not
told."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset, DatasetVersion, VersionRead
from datahub.pipelines.models import Pipeline, Run
from datahub.resources.access import readable_ids

DIRECTIONS = ("upstream", "downstream", "both")


def version_id(dataset_id, version):
    return f"dataset:{dataset_id}@{version}"


class Graph:
    def __init__(self):
        self.versions, self.runs, self.edges = set(), set(), set()

    def edge(self, source, target):
        self.edges.add((source, target))


def lineage(dataset_id, version, direction="both", depth=3, viewer=None):
    """``{"nodes", "edges"}`` around version ``version`` of dataset ``dataset_id``, as
    ``viewer`` may see it (None: everything)."""
    graph = Graph()
    graph.versions.add((dataset_id, version))
    if direction in ("upstream", "both"):
        _walk(graph, {(dataset_id, version)}, depth, _upstream)
    if direction in ("downstream", "both"):
        _walk(graph, {(dataset_id, version)}, depth, _downstream)
    return _answer(graph, viewer)


def _walk(graph, frontier, depth, step):
    seen = set(frontier)
    for _ in range(depth):
        if not frontier:
            return
        reached = step(graph, frontier) - seen
        seen |= reached
        frontier = reached


def _pairs(column_a, column_b, pairs):
    return sa.tuple_(column_a, column_b).in_([sa.tuple_(a, b) for a, b in pairs])


def _upstream(graph, versions):
    """The runs that made ``versions`` and the versions those runs read."""
    return _hop(graph, versions, DatasetVersion, VersionRead)


def _downstream(graph, versions):
    """The runs that read ``versions`` and the versions those runs made."""
    return _hop(graph, versions, VersionRead, DatasetVersion)


def _hop(graph, versions, near, far):
    """The runs of ``near``'s rows for ``versions`` (a version a run made, or read), and
    the versions of those runs' ``far`` rows: added to ``graph``, the new ones answered."""
    rows = db.session.execute(
        sa.select(near.run_id, near.dataset_id, near.version).where(
            _pairs(near.dataset_id, near.version, versions), near.run_id.is_not(None)
        )
    ).all()
    runs = {run_id for run_id, _, _ in rows}
    for run_id, dataset_id, number in rows:
        graph.runs.add(run_id)
        _edge(graph, near, run_id, dataset_id, number)
    if not runs:
        return set()
    found = set()
    for run_id, dataset_id, number in db.session.execute(
        sa.select(far.run_id, far.dataset_id, far.version).where(far.run_id.in_(runs))
    ).all():
        found.add((dataset_id, number))
        _edge(graph, far, run_id, dataset_id, number)
    graph.versions |= found
    return found


def _edge(graph, table, run_id, dataset_id, number):
    """A run points at the versions it made; a version at the runs that read it."""
    run, version = f"run:{run_id}", version_id(dataset_id, number)
    if table is DatasetVersion:
        graph.edge(run, version)
    else:
        graph.edge(version, run)


def _answer(graph, viewer):
    dataset_ids = sorted({dataset_id for dataset_id, _ in graph.versions})
    names = dict(
        db.session.execute(
            sa.select(Dataset.id, Dataset.name).where(Dataset.id.in_(dataset_ids))
        ).all()
    )
    pipelines = dict(
        db.session.execute(sa.select(Run.id, Run.pipeline_id).where(Run.id.in_(graph.runs))).all()
    )
    shown_datasets, shown_pipelines = set(dataset_ids), set(pipelines.values())
    if viewer is not None:
        shown_datasets = set(readable_ids(Dataset, dataset_ids, viewer))
        shown_pipelines = set(readable_ids(Pipeline, sorted(shown_pipelines), viewer))
    hidden = {}  # a hidden node's real id -> "hidden:N"

    def shown(node_id):
        return node_id if node_id not in hidden else hidden[node_id]

    nodes = []
    for dataset_id, number in sorted(graph.versions):
        node_id = version_id(dataset_id, number)
        if dataset_id in shown_datasets:
            nodes.append(
                {
                    "id": node_id,
                    "type": "version",
                    "dataset_id": dataset_id,
                    "version": number,
                    "name": names.get(dataset_id),
                }
            )
        else:
            hidden[node_id] = f"hidden:{len(hidden) + 1}"
            nodes.append({"id": hidden[node_id], "type": "hidden"})
    for run_id in sorted(graph.runs):
        if run_id not in pipelines:
            continue
        node_id = f"run:{run_id}"
        if pipelines[run_id] in shown_pipelines:
            nodes.append(
                {"id": node_id, "type": "run", "run_id": run_id, "pipeline_id": pipelines[run_id]}
            )
        else:
            hidden[node_id] = f"hidden:{len(hidden) + 1}"
            nodes.append({"id": hidden[node_id], "type": "hidden"})
    edges = [{"from": shown(source), "to": shown(target)} for source, target in sorted(graph.edges)]
    return {"nodes": nodes, "edges": edges}
