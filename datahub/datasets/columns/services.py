"""What a dataset's columns mean: descriptions kept by column name across versions, shown
with the current version's columns and types (read as a preview reads them)."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets import previews
from datahub.datasets.columns.errors import NoColumnsYet, UnknownColumns
from datahub.datasets.columns.models import ColumnDescription
from datahub.datasets.services import UPDATED, get_dataset
from datahub.platform.database import utcnow


def descriptions_of(dataset_id):
    query = sa.select(ColumnDescription).where(ColumnDescription.dataset_id == dataset_id)
    return {row.name: row for row in db.session.scalars(query)}


def current_columns(dataset, config):
    """``[{"name", "type"}]`` of the current version (``[]`` without a file); a file that
    is not a table is the preview's 422."""
    if dataset.file_key is None:
        return []
    return previews.preview_dataset(dataset, 0, config)["columns"]


def columns_of(dataset, config, columns=None):
    """``{"version", "columns": [{"name", "type", "description"}]}`` (``columns``: the
    current version's, when read already)."""
    version = dataset.current_version
    if columns is None:
        columns = current_columns(dataset, config)
    described = descriptions_of(dataset.id)
    return {
        "version": version,
        "columns": [
            {
                **column,
                "description": described[column["name"]].description
                if column["name"] in described
                else "",
            }
            for column in columns
        ],
    }


def describe_columns(dataset_id, items, config):
    """Set the descriptions ``items`` (``[{"name", "description"}]``, "" removes one) of
    columns of the dataset's current version, with its ``updated_at`` and a
    ``datahub.dataset.updated`` event, in one transaction; the dataset's columns."""
    dataset = get_dataset(dataset_id)
    if dataset.file_key is None:
        raise NoColumnsYet()
    columns = current_columns(dataset, config)
    names = {column["name"] for column in columns}
    unknown = {i: item["name"] for i, item in enumerate(items) if item["name"] not in names}
    if unknown:
        raise UnknownColumns(unknown)
    version = dataset.current_version
    dataset = get_dataset(dataset_id, for_update=True)  # the preview ended the transaction
    if dataset.current_version != version:  # a new version meanwhile: read its columns
        return describe_columns(dataset_id, items, config)
    described = descriptions_of(dataset.id)
    for item in items:
        row = described.get(item["name"])
        if not item["description"]:
            if row is not None:
                db.session.delete(row)
                del described[item["name"]]
        elif row is None:
            described[item["name"]] = row = ColumnDescription(
                dataset_id=dataset.id, name=item["name"], description=item["description"]
            )
            db.session.add(row)
        else:
            row.description = item["description"]
    dataset.updated_at = utcnow()
    UPDATED(dataset)
    db.session.commit()
    return columns_of(dataset, config, columns)
