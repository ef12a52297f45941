"""Profiles of files stored on S3 (a real moto server): read from a local copy that is
removed afterwards; the storage being down leaves the version pending, tried again later."""

import os

import pytest
import sqlalchemy as sa
from botocore.exceptions import EndpointConnectionError

from datahub.app.extensions import db
from datahub.datasets.profiles.models import ContentProfile
from datahub.platform.storage import get_storage
from tests.datasets.profiles.test_profiles import CITIES, profile_pending, version_url, with_file
from tests.resources import actors  # noqa: F401  (fixture)


@pytest.fixture
def config_overrides(s3_server, s3_prefix, tmp_path):
    (tmp_path / "copies").mkdir()
    return s3_server.config(s3_prefix, PIPELINE_TEMP_DIR=str(tmp_path / "copies"))


def test_a_profile_of_a_file_on_s3(app, client, actors, tmp_path):  # noqa: F811
    editor = actors["editor"]
    dataset = with_file(client, editor, CITIES)
    assert profile_pending(app) == 1
    schema = client.get(version_url(dataset), headers=editor.headers).get_json()
    assert schema["rows"] == 3
    profile = client.get(version_url(dataset, part="profile"), headers=editor.headers).get_json()
    assert profile["status"] == "ready"
    assert os.listdir(tmp_path / "copies") == []  # the local copy is gone


def test_an_unreachable_s3_leaves_it_pending(app, client, actors, monkeypatch):  # noqa: F811
    editor = actors["editor"]
    dataset = with_file(client, editor, CITIES)
    with app.app_context():
        storage = get_storage()

    def unreachable(**_kwargs):
        raise EndpointConnectionError(endpoint_url="http://127.0.0.1:9")

    monkeypatch.setattr(storage.client, "get_object", unreachable)
    assert profile_pending(app) == 0
    assert client.get(version_url(dataset), headers=editor.headers).status_code == 202
    assert profile_pending(app) == 0  # not tried again at once
    monkeypatch.undo()
    with app.app_context():  # until RETRY_SECONDS have passed
        db.session.execute(sa.update(ContentProfile).values(claimed_until=None))
        db.session.commit()
    assert profile_pending(app) == 1
    assert client.get(version_url(dataset), headers=editor.headers).status_code == 200
