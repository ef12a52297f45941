"""The OpenAPI document with OPENAPI_DEFERRED off (every path documented while the app is
made, as smorest does on its own): the same document, byte for byte, as deferred."""

from datahub import create_app
from datahub.app.extensions import api
from tests.fallbacks import setting_off
from tests.test_openapi import (  # noqa: F401  (collected here too, with their fixture)
    spec,
    test_every_endpoint_is_documented_with_its_errors,
    test_step_shapes_are_documented,
)

public_api_only = setting_off("OPENAPI_DEFERRED")


def test_the_document_is_made_at_start_and_is_the_deferred_one(app, base_config):
    assert app.config["OPENAPI_DEFERRED"] is False
    assert api.spec._queued == []  # nothing left for the first read
    at_start = app.test_client().get("/api/v1/openapi.json")
    deferred_app = create_app({**base_config, "OPENAPI_DEFERRED": True})
    assert api.spec._queued != []
    deferred = deferred_app.test_client().get("/api/v1/openapi.json")
    assert api.spec._queued == []
    assert (at_start.status_code, deferred.status_code) == (200, 200)
    assert at_start.data == deferred.data
