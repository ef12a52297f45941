"""The OpenAPI document describes every resource endpoint, parameter, body and error."""
import pytest


@pytest.fixture
def spec(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.get_json()


EXPECTED = {
    "/api/v1/datasets/": {"get", "post"},
    "/api/v1/datasets/{dataset_id}": {"get", "patch", "delete"},
    "/api/v1/datasets/{dataset_id}/file": {"get", "put"},
    "/api/v1/collections/": {"get", "post"},
    "/api/v1/collections/{collection_id}": {"get", "patch", "delete"},
    "/api/v1/collections/{collection_id}/datasets/{dataset_id}": {"put", "delete"},
    "/api/v1/users/": {"get", "post"},
    "/api/v1/users/{user_id}": {"get", "patch", "delete"},
    "/api/v1/pipelines/": {"get", "post"},
    "/api/v1/pipelines/{pipeline_id}": {"get", "patch", "delete"},
    "/api/v1/pipelines/{pipeline_id}/runs": {"get", "post"},
    "/api/v1/pipelines/{pipeline_id}/runs/{run_id}": {"get"},
    "/api/v1/pipelines/{pipeline_id}/runs/{run_id}/cancel": {"post"},
}


def test_every_endpoint_is_documented_with_its_errors(spec):
    for path, methods in EXPECTED.items():
        assert path in spec["paths"], path
        item = spec["paths"][path]
        assert methods <= set(item), (path, set(item))
        for method in methods:
            operation = item[method]
            assert operation["security"] == [{"bearerAuth": []}], (path, method)
            assert operation.get("summary"), (path, method)
            for code in ("401", "403"):
                response = operation["responses"][code]
                assert response["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/Error"}, (path, method, code)
            if "{" in path:
                assert "404" in operation["responses"], (path, method)
            if method in ("post", "patch"):
                assert "422" in operation["responses"], (path, method)
                if not path.endswith(("/runs", "/cancel")):  # actions without a body
                    assert "requestBody" in operation, (path, method)


def test_path_ids_are_integers(spec):
    for path in EXPECTED:
        for name in ("dataset_id", "collection_id", "pipeline_id", "run_id"):
            if "{" + name + "}" not in path:
                continue
            parameters = spec["paths"][path]["parameters"]
            [parameter] = [p for p in parameters if p["name"] == name]
            assert parameter["in"] == "path" and parameter["schema"]["type"] == "integer"


def test_list_parameters_and_envelope(spec):
    operation = spec["paths"]["/api/v1/datasets/"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert set(params) == {"limit", "offset", "q", "tag", "owner"}
    assert params["limit"]["schema"] == {"type": "integer", "default": 20, "minimum": 1,
                                         "maximum": 100}
    page = spec["components"]["schemas"]["DatasetPage"]
    assert set(page["properties"]) == {"items", "total", "limit", "offset"}
    dataset = spec["components"]["schemas"]["Dataset"]
    assert set(dataset["properties"]) == {"id", "name", "description", "tags", "owner_id",
                                          "created_at", "updated_at", "file"}


def test_upload_body_and_conflicts(spec):
    put = spec["paths"]["/api/v1/datasets/{dataset_id}/file"]["put"]
    assert set(put["requestBody"]["content"]) == {"multipart/form-data", "application/octet-stream"}
    assert "400" in put["responses"]
    get = spec["paths"]["/api/v1/datasets/{dataset_id}/file"]["get"]
    assert {"200", "206", "304", "416"} <= set(get["responses"])
    assert "409" in spec["paths"]["/api/v1/datasets/"]["post"]["responses"]
    assert "409" in spec["paths"]["/api/v1/collections/"]["post"]["responses"]
    create = spec["components"]["schemas"]["DatasetCreate"]
    assert create["additionalProperties"] is False
    assert set(create["properties"]) == {"name", "description", "tags"}


def test_step_shapes_are_documented(spec):
    schemas = spec["components"]["schemas"]
    steps = schemas["PipelineCreate"]["properties"]["steps"]["items"]["oneOf"]
    names = [ref["$ref"].rsplit("/", 1)[1] for ref in steps]
    assert names == ["SelectStep", "RenameStep", "FilterStep", "SortStep", "DedupeStep",
                     "LimitStep"]
    assert schemas["FilterStep"]["properties"]["operator"]["enum"] == [
        "eq", "ne", "lt", "le", "gt", "ge", "contains"]
    assert sorted(schemas["FilterStep"]["required"]) == ["column", "op", "operator", "value"]
    assert schemas["LimitStep"]["properties"]["count"]["minimum"] == 0
    assert schemas["SortStep"]["properties"]["op"]["enum"] == ["sort"]
    post = spec["paths"]["/api/v1/pipelines/{pipeline_id}/runs"]["post"]["responses"]
    assert {"201", "401", "403", "404", "409", "422"} <= set(post)
