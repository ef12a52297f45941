"""Checks of versions stored on S3 (a real moto server): run on a local copy that is
removed afterwards; the storage being down leaves the version pending."""

import os

import pytest
import sqlalchemy as sa
from botocore.exceptions import EndpointConnectionError

from datahub.app.extensions import db
from datahub.datasets.checks import auditor
from datahub.datasets.checks.models import VersionAudit
from datahub.platform.storage import get_storage
from tests.datasets.checks.test_checks import BAD, GOOD, put, results, version, with_checks
from tests.resources import actors  # noqa: F401  (fixture)


@pytest.fixture
def config_overrides(s3_server, s3_prefix, tmp_path):
    (tmp_path / "copies").mkdir()
    return s3_server.config(s3_prefix, PIPELINE_TEMP_DIR=str(tmp_path / "copies"))


def test_checks_of_versions_on_s3(app, client, actors, tmp_path):  # noqa: F811
    editor = actors["editor"]
    dataset = with_checks(client, editor)
    put(client, editor, dataset, GOOD)
    put(client, editor, dataset, BAD)
    assert auditor.audit_pending(app) == 2
    assert version(client, editor.headers, dataset, 1)["state"] == "published"
    assert version(client, editor.headers, dataset, 2)["state"] == "quarantined"
    assert {r["name"] for r in results(client, editor.headers, dataset, 2)["results"]} == {
        "ids",
        "amounts",
        "cities",
    }
    assert os.listdir(tmp_path / "copies") == []  # the local copies are gone


def test_an_unreachable_s3_leaves_the_version_pending(app, client, actors, monkeypatch):  # noqa: F811
    editor = actors["editor"]
    dataset = with_checks(client, editor)
    put(client, editor, dataset, GOOD)
    with app.app_context():
        storage = get_storage()

    def unreachable(**_kwargs):
        raise EndpointConnectionError(endpoint_url="http://127.0.0.1:9")

    monkeypatch.setattr(storage.client, "get_object", unreachable)
    assert auditor.audit_pending(app) == 0
    assert version(client, editor.headers, dataset, 1)["state"] == "pending"
    monkeypatch.undo()
    assert auditor.audit_pending(app) == 0  # not tried again at once
    with app.app_context():
        db.session.execute(sa.update(VersionAudit).values(claimed_until=None))
        db.session.commit()
    assert auditor.audit_pending(app) == 1
    assert version(client, editor.headers, dataset, 1)["state"] == "published"
