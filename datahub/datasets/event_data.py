"""What the events about a dataset and its versions say (docs/guides/events.rst)."""

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from datahub.events import outbox


def describe_dataset(dataset):
    data = {
        "id": dataset.id,
        "name": dataset.name,
        "owner_id": dataset.owner_id,
        "visibility": dataset.visibility,
        "current_version": dataset.current_version,
    }
    return outbox.about(f"/api/v1/datasets/{dataset.id}", data, dataset, dataset_id=dataset.id)


def describe_version(version):
    data = {
        "dataset_id": version.dataset_id,
        "version": version.version,
        "sha256": version.sha256,
        "size": version.size_bytes,
        "filename": version.filename,
        "content_type": version.content_type,
        "created_by": version.created_by,
        "run_id": version.run_id,
        "message": version.message,
    }
    source = f"/api/v1/datasets/{version.dataset_id}/versions/{version.version}"
    dataset = db.session.get(Dataset, version.dataset_id)
    return outbox.about(source, data, dataset, dataset_id=version.dataset_id)


def record_dataset(type_, dataset):
    outbox.record(type_, dataset, describe_dataset)


def record_version(version):
    outbox.record("datahub.dataset.version.created", version, describe_version)


def record_version_quarantined(version, failed):
    """A version failed its checks (``failed``: their names)."""

    def describe(row):
        described = describe_version(row)
        described["data"]["failed_checks"] = list(failed)
        return described

    outbox.record("datahub.dataset.version.quarantined", version, describe)
