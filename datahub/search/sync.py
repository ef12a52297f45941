"""The index follows every change in the change's own transaction: a dataset is found the
moment its create answers and is gone the moment its delete answers.

The session notes which datasets, collections and pipelines a flush touches (their rows,
a dataset's tags and column descriptions), and before the commit writes their documents
(datahub.search.documents) in the same transaction. Statements that bypass the session
(``sa.update(Dataset)``) are not seen: the code changes resources through the ORM, and
``flask --app datahub search reindex`` repairs anything else. ``SEARCH_INDEX_ON_WRITE``
off (a bulk load, then a reindex) turns this off.
"""

import itertools

from flask import current_app, has_app_context
from sqlalchemy import event, inspect

from datahub.app.extensions import db
from datahub.datasets.columns.models import ColumnDescription
from datahub.datasets.models import DatasetTag
from datahub.search import documents

_PENDING = "datahub_search"


def _enabled():
    return has_app_context() and current_app.config.get("SEARCH_INDEX_ON_WRITE", True)


@event.listens_for(db.session, "before_flush")
def _note_changes(session, _context, _instances):
    if not _enabled():
        return
    pending = session.info.setdefault(_PENDING, {})
    for obj in itertools.chain(session.new, session.dirty, session.deleted):
        target = _resource_of(obj)
        if target is None:
            continue
        if obj in session.deleted and target is obj:
            pending[id(obj)] = ("delete", documents.KIND_OF[type(obj)], obj.id)
        elif obj in session.new and target is obj:
            pending.setdefault(id(obj), ("new", obj))
        elif target is obj and not session.is_modified(obj):
            continue
        else:
            # ("changed", resource, whether its text changed): else only its attributes
            entry = pending.get(id(target), ("changed", target, False))
            if entry[0] == "changed":
                text = entry[2] or target is not obj or _text_changed(obj)
                pending[id(target)] = ("changed", target, text)


def _text_changed(resource):
    """Whether a change of ``resource`` touches the text its document is searched by
    (else only what results are filtered by is written: datahub.search.documents)."""
    state = inspect(resource)
    return any(
        state.attrs[name].history.has_changes()
        for name in documents.TEXT_ATTRIBUTES[type(resource)]
    )


def _resource_of(obj):
    """The dataset, collection or pipeline whose document ``obj``'s change touches."""
    if type(obj) in documents.KIND_OF:
        return obj
    if isinstance(obj, DatasetTag):
        return obj.dataset if obj.dataset is not None else _dataset(obj.dataset_id)
    if isinstance(obj, ColumnDescription):
        return _dataset(obj.dataset_id)
    return None


def _dataset(dataset_id):
    return (
        db.session.get(documents.MODELS["dataset"], dataset_id) if dataset_id is not None else None
    )


# First among the commit's listeners: the documents are written before the events
# (datahub.events.outbox), whose PostgreSQL lock is then held for no longer than before.
@event.listens_for(db.session, "before_commit", insert=True)
def _write_documents(session):
    if not _enabled():
        return
    if session.new or session.dirty or session.deleted:
        session.flush()  # new rows get their ids, and the changes are noted
    pending = session.info.pop(_PENDING, None)
    if not pending:
        return
    connection = session.connection()
    by_kind = {}
    for entry in pending.values():
        if entry[0] == "delete":
            documents.remove(connection, entry[1], [entry[2]])
            continue
        row = entry[1]
        state = inspect(row)
        if state.deleted or state.detached or state.transient:
            continue
        mode = "attributes" if entry[0] == "changed" and not entry[2] else entry[0]
        by_kind.setdefault((documents.KIND_OF[type(row)], mode), []).append(row)
    for (kind, mode), rows in by_kind.items():
        if mode == "attributes":
            rows = documents.write_attributes(connection, kind, rows)
        documents.index_rows(connection, kind, rows, new=mode == "new")


@event.listens_for(db.session, "after_rollback")
def _forget(session):
    session.info.pop(_PENDING, None)
