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
    "/api/v1/datasets/{dataset_id}/preview": {"get"},
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


def test_preview_parameters_and_shape(spec):
    operation = spec["paths"]["/api/v1/datasets/{dataset_id}/preview"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert params["limit"]["schema"] == {"type": "integer", "default": 50, "minimum": 1,
                                         "maximum": 1000}
    assert {"200", "401", "403", "404", "422"} <= set(operation["responses"])
    preview = spec["components"]["schemas"]["Preview"]
    assert set(preview["properties"]) == {"format", "columns", "rows"}
    assert preview["properties"]["format"]["enum"] == ["csv", "parquet", "jsonl"]
    column = spec["components"]["schemas"]["PreviewColumn"]
    assert set(column["properties"]) == {"name", "type"}


def test_step_shapes_are_documented(spec):
    schemas = spec["components"]["schemas"]
    steps = schemas["PipelineCreate"]["properties"]["steps"]["items"]["oneOf"]
    names = [ref["$ref"].rsplit("/", 1)[1] for ref in steps]
    assert names == ["SelectStep", "RenameStep", "FilterStep", "SortStep", "DedupeStep",
                     "LimitStep", "CastStep", "AggregateStep", "JoinStep", "SqlStep"]
    assert schemas["FilterStep"]["properties"]["operator"]["enum"] == [
        "eq", "ne", "lt", "le", "gt", "ge", "contains"]
    assert sorted(schemas["FilterStep"]["required"]) == ["column", "op", "operator", "value"]
    assert schemas["LimitStep"]["properties"]["count"]["minimum"] == 0
    assert schemas["SortStep"]["properties"]["op"]["enum"] == ["sort"]
    # An aggregate needs its column except count: two shapes, told apart by function.
    aggregate = schemas["AggregateStep"]["properties"]["aggregates"]["items"]["oneOf"]
    assert [ref["$ref"].rsplit("/", 1)[1] for ref in aggregate] == [
        "CountAggregate", "ColumnAggregate"]
    assert schemas["CountAggregate"]["properties"]["function"]["enum"] == ["count"]
    assert schemas["CountAggregate"]["required"] == ["function"]
    assert schemas["ColumnAggregate"]["properties"]["function"]["enum"] == [
        "sum", "avg", "min", "max"]
    assert sorted(schemas["ColumnAggregate"]["required"]) == ["column", "function"]
    post = spec["paths"]["/api/v1/pipelines/{pipeline_id}/runs"]["post"]["responses"]
    assert {"201", "401", "403", "404", "409", "422"} <= set(post)


# Every Latin-1 character and a few others, alone and inside text.
SAMPLES = [text for code in [*range(0x100), 0x2028, 0xFEFF, 0x1F600]
           for text in (chr(code), f"a{chr(code)}", f"a{chr(code)}b", f"{chr(code)} a")]


def documented(spec, *path):
    node = spec
    for key in path:
        node = node[key]
    return node


def parameter(spec, path, method, name):
    operation = spec["paths"][path][method]
    [found] = [p for p in operation.get("parameters", []) + spec["paths"][path].get(
        "parameters", []) if p["name"] == name]
    return found["schema"]


@pytest.mark.parametrize("where, schema_class, field", [
    (("components", "schemas", "DatasetCreate", "properties", "name"),
     "datahub.datasets.schemas:DatasetCreateSchema", "name"),
    (("components", "schemas", "DatasetCreate", "properties", "description"),
     "datahub.datasets.schemas:DatasetCreateSchema", "description"),
    (("components", "schemas", "DatasetCreate", "properties", "tags", "items"),
     "datahub.datasets.schemas:DatasetCreateSchema", "tags"),
    (("components", "schemas", "PipelineCreate", "properties", "output_dataset_name"),
     "datahub.pipelines.schemas:PipelineCreateSchema", "output_dataset_name"),
    (("components", "schemas", "NewUser", "properties", "name"),
     "datahub.users.schemas:NewUserSchema", "name"),
    (("/api/v1/datasets/", "get", "q"), "datahub.datasets.schemas:DatasetListArgsSchema", "q"),
    (("/api/v1/datasets/", "get", "tag"), "datahub.datasets.schemas:DatasetListArgsSchema",
     "tag"),
])
def test_documented_patterns_agree_with_the_checks(spec, where, schema_class, field):
    """A schema-driven client (or fuzzer) and the server accept exactly the same strings."""
    import importlib

    import jsonschema_rs

    module, name = schema_class.split(":")
    schema = getattr(importlib.import_module(module), name)()
    document = parameter(spec, *where) if where[0].startswith("/") else documented(spec, *where)
    assert "pattern" in document
    valid = jsonschema_rs.validator_for(document).is_valid
    disagreements = []
    for text in SAMPLES:
        value = [text] if field == "tags" else text
        if field == "tags" and len(text) > 64:
            continue
        errors = schema.validate({field: value}, partial=True).get(field)
        if valid(text) != (errors is None):
            disagreements.append((text, valid(text), errors))
    assert disagreements == []


def test_string_path_parameters_document_the_control_character_rule(spec):
    import jsonschema_rs

    from datahub.api import InvalidText, TextConverter

    for path, name in (("/api/v1/users/{user_id}", "user_id"),
                       ("/api/v1/auth/sessions/{session_id}", "session_id")):
        document = spec["paths"][path]["parameters"]
        [schema] = [p["schema"] for p in document if p["name"] == name]
        valid = jsonschema_rs.validator_for(schema).is_valid
        converter = TextConverter(None)
        for text in SAMPLES:
            refused = isinstance(converter.to_python(text), InvalidText)
            assert valid(text) != refused, (path, text)
