"""Search values of a file stored on S3 (a real moto server): read from a local copy that
is removed afterwards."""

import os

import pytest
from botocore.exceptions import EndpointConnectionError

from datahub.platform.storage import get_storage
from datahub.search import values
from tests.resources import actors, create_dataset  # noqa: F401  (fixture)
from tests.search.test_values import CITIES, document, ensure_document, put


@pytest.fixture
def config_overrides(s3_server, s3_prefix, tmp_path):
    (tmp_path / "copies").mkdir()
    return s3_server.config(s3_prefix, PIPELINE_TEMP_DIR=str(tmp_path / "copies"))


def test_values_of_a_file_on_s3(app, client, actors, tmp_path):  # noqa: F811
    editor = actors["editor"]
    dataset = create_dataset(client, editor.headers, "on s3")
    put(client, editor, dataset, CITIES)
    ensure_document(app, dataset["id"])
    assert values.index_pending(app) == 1
    found = document(app, dataset["id"])
    assert found["values_version"] == 1
    assert "Trondheim" in found["cell_values"].split("\n")
    assert os.listdir(tmp_path / "copies") == []  # the local copy is gone


def test_an_unreachable_s3_is_tried_again_later(app, client, actors, monkeypatch):  # noqa: F811
    editor = actors["editor"]
    dataset = create_dataset(client, editor.headers, "on s3")
    put(client, editor, dataset, CITIES)
    ensure_document(app, dataset["id"])
    with app.app_context():
        storage = get_storage()

    def unreachable(**_kwargs):
        raise EndpointConnectionError(endpoint_url="http://127.0.0.1:9")

    monkeypatch.setattr(storage.client, "get_object", unreachable)
    monkeypatch.setattr(values, "_retry_after", {})
    assert values.index_pending(app) == 0
    assert document(app, dataset["id"])["values_version"] is None  # not recorded as failed
    assert dataset["id"] in values._retry_after
    assert values.index_pending(app) == 0  # not tried again at once
