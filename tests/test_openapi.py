"""The OpenAPI document describes every resource endpoint, parameter, body and error."""

import io
import re

import pytest

from tests.resources import actors  # noqa: F401  (fixture)


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
    "/api/v1/groups/": {"get", "post"},
    "/api/v1/groups/{group_id}": {"get", "patch", "delete"},
    "/api/v1/groups/{group_id}/members/{user_id}": {"put", "delete"},
    "/api/v1/pipelines/": {"get", "post"},
    "/api/v1/pipelines/{pipeline_id}": {"get", "patch", "delete"},
    "/api/v1/pipelines/{pipeline_id}/runs": {"get", "post"},
    "/api/v1/pipelines/{pipeline_id}/runs/{run_id}": {"get"},
    "/api/v1/pipelines/{pipeline_id}/runs/{run_id}/cancel": {"post"},
    "/api/v1/datasets/{dataset_id}/grants": {"get", "post"},
    "/api/v1/datasets/{dataset_id}/grants/{grant_id}": {"delete"},
    "/api/v1/collections/{collection_id}/grants": {"get", "post"},
    "/api/v1/collections/{collection_id}/grants/{grant_id}": {"delete"},
    "/api/v1/pipelines/{pipeline_id}/grants": {"get", "post"},
    "/api/v1/pipelines/{pipeline_id}/grants/{grant_id}": {"delete"},
    "/api/v1/auth/tokens": {"get", "post"},
    "/api/v1/auth/tokens/{token_id}": {"get", "delete"},
    "/api/v1/users/{user_id}/tokens": {"get"},
    "/api/v1/users/{user_id}/tokens/{token_id}": {"delete"},
}

# Every user, with any token, may read their own tokens: no 403 there.
NEVER_FORBIDDEN = {("/api/v1/auth/tokens", "get"), ("/api/v1/auth/tokens/{token_id}", "get")}


def test_every_endpoint_is_documented_with_its_errors(spec):
    for path, methods in EXPECTED.items():
        assert path in spec["paths"], path
        item = spec["paths"][path]
        assert methods <= set(item), (path, set(item))
        for method in methods:
            operation = item[method]
            assert operation["security"] == [{"bearerAuth": []}], (path, method)
            assert operation.get("summary"), (path, method)
            for code in ("401",) if (path, method) in NEVER_FORBIDDEN else ("401", "403"):
                response = operation["responses"][code]
                assert response["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/Error"
                }, (path, method, code)
            if "{" in path:
                assert "404" in operation["responses"], (path, method)
            if method in ("post", "patch"):
                assert "422" in operation["responses"], (path, method)
                if not path.endswith(("/runs", "/cancel")):  # actions without a body
                    assert "requestBody" in operation, (path, method)


def test_path_ids_are_integers(spec):
    for path in EXPECTED:
        for name in (
            "dataset_id",
            "collection_id",
            "pipeline_id",
            "run_id",
            "group_id",
            "grant_id",
        ):
            if "{" + name + "}" not in path:
                continue
            parameters = spec["paths"][path]["parameters"]
            [parameter] = [p for p in parameters if p["name"] == name]
            assert parameter["in"] == "path" and parameter["schema"]["type"] == "integer"


def test_list_parameters_and_envelope(spec):
    operation = spec["paths"]["/api/v1/datasets/"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert set(params) == {"limit", "offset", "q", "tag", "owner", "sort"}
    assert params["sort"]["schema"]["enum"] == [
        "name",
        "-name",
        "created_at",
        "-created_at",
        "updated_at",
        "-updated_at",
    ]
    for path in ("/api/v1/collections/", "/api/v1/pipelines/"):
        listed = {p["name"]: p for p in spec["paths"][path]["get"]["parameters"]}
        assert listed["sort"] == params["sort"], path
    assert params["limit"]["schema"] == {
        "type": "integer",
        "default": 20,
        "minimum": 1,
        "maximum": 100,
    }
    page = spec["components"]["schemas"]["DatasetPage"]
    assert set(page["properties"]) == {"items", "total", "limit", "offset"}
    dataset = spec["components"]["schemas"]["Dataset"]
    assert set(dataset["properties"]) == {
        "id",
        "name",
        "description",
        "readme",
        "tags",
        "owner_id",
        "visibility",
        "created_at",
        "updated_at",
        "file",
        "current_version",
        "capabilities",
        "stats",
        "schema",
    }
    for name in ("Dataset", "Collection", "Pipeline"):
        capabilities = spec["components"]["schemas"][name]["properties"]["capabilities"]
        assert capabilities["allOf"] == [{"$ref": "#/components/schemas/Capabilities"}], name
    assert sorted(spec["components"]["schemas"]["Capabilities"]["required"]) == ["manage", "write"]


def test_upload_body_and_conflicts(spec):
    put = spec["paths"]["/api/v1/datasets/{dataset_id}/file"]["put"]
    assert set(put["requestBody"]["content"]) == {
        "multipart/form-data",
        "application/octet-stream",
        "*/*",
    }
    assert "400" in put["responses"]
    get = spec["paths"]["/api/v1/datasets/{dataset_id}/file"]["get"]
    assert {"200", "206", "304", "416"} <= set(get["responses"])
    assert "409" in spec["paths"]["/api/v1/datasets/"]["post"]["responses"]
    assert "409" in spec["paths"]["/api/v1/collections/"]["post"]["responses"]
    create = spec["components"]["schemas"]["DatasetCreate"]
    assert create["additionalProperties"] is False
    assert set(create["properties"]) == {"name", "description", "readme", "tags", "visibility"}


def test_preview_parameters_and_shape(spec):
    operation = spec["paths"]["/api/v1/datasets/{dataset_id}/preview"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert params["limit"]["schema"] == {
        "type": "integer",
        "default": 50,
        "minimum": 1,
        "maximum": 1000,
    }
    assert {"200", "401", "403", "404", "422"} <= set(operation["responses"])
    preview = spec["components"]["schemas"]["Preview"]
    assert set(preview["properties"]) == {"format", "columns", "rows", "truncated"}
    assert preview["properties"]["format"]["allOf"] == [{"$ref": "#/components/schemas/FileFormat"}]
    assert spec["components"]["schemas"]["FileFormat"]["enum"] == ["csv", "parquet", "jsonl"]
    column = spec["components"]["schemas"]["PreviewColumn"]
    assert set(column["properties"]) == {"name", "type"}


def test_step_shapes_are_documented(spec):
    schemas = spec["components"]["schemas"]
    steps = schemas["PipelineCreate"]["properties"]["steps"]["items"]["oneOf"]
    names = [ref["$ref"].rsplit("/", 1)[1] for ref in steps]
    assert names == [
        "SelectStep",
        "RenameStep",
        "FilterStep",
        "SortStep",
        "DedupeStep",
        "LimitStep",
        "CastStep",
        "AggregateStep",
        "JoinStep",
        "SqlStep",
    ]
    assert schemas["FilterStep"]["properties"]["operator"]["enum"] == [
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "contains",
    ]
    assert sorted(schemas["FilterStep"]["required"]) == ["column", "op", "operator", "value"]
    assert schemas["LimitStep"]["properties"]["count"]["minimum"] == 0
    assert schemas["SortStep"]["properties"]["op"]["enum"] == ["sort"]
    # An aggregate needs its column except count: two shapes, told apart by function.
    aggregate = schemas["AggregateStep"]["properties"]["aggregates"]["items"]["oneOf"]
    assert [ref["$ref"].rsplit("/", 1)[1] for ref in aggregate] == [
        "CountAggregate",
        "ColumnAggregate",
    ]
    assert schemas["CountAggregate"]["properties"]["function"]["enum"] == ["count"]
    assert schemas["CountAggregate"]["required"] == ["function"]
    assert schemas["ColumnAggregate"]["properties"]["function"]["enum"] == [
        "sum",
        "avg",
        "min",
        "max",
    ]
    assert sorted(schemas["ColumnAggregate"]["required"]) == ["column", "function"]
    post = spec["paths"]["/api/v1/pipelines/{pipeline_id}/runs"]["post"]["responses"]
    assert {"201", "401", "403", "404", "409", "422"} <= set(post)


# Every Latin-1 character and a few others, alone and inside text.
SAMPLES = [
    text
    for code in [*range(0x100), 0x2028, 0xFEFF, 0x1F600]
    for text in (chr(code), f"a{chr(code)}", f"a{chr(code)}b", f"{chr(code)} a")
]


def documented(spec, *path):
    node = spec
    for key in path:
        node = node[key]
    return node


def parameter(spec, path, method, name):
    operation = spec["paths"][path][method]
    [found] = [
        p
        for p in operation.get("parameters", []) + spec["paths"][path].get("parameters", [])
        if p["name"] == name
    ]
    return found["schema"]


@pytest.mark.parametrize(
    "where, schema_class, field",
    [
        (
            ("components", "schemas", "DatasetCreate", "properties", "name"),
            "datahub.datasets.schemas:DatasetCreateSchema",
            "name",
        ),
        (
            ("components", "schemas", "DatasetCreate", "properties", "description"),
            "datahub.datasets.schemas:DatasetCreateSchema",
            "description",
        ),
        (
            ("components", "schemas", "DatasetCreate", "properties", "tags", "items"),
            "datahub.datasets.schemas:DatasetCreateSchema",
            "tags",
        ),
        (
            ("components", "schemas", "PipelineCreate", "properties", "output_dataset_name"),
            "datahub.pipelines.schemas:PipelineCreateSchema",
            "output_dataset_name",
        ),
        (
            ("components", "schemas", "NewUser", "properties", "name"),
            "datahub.identity.users.schemas:NewUserSchema",
            "name",
        ),
        (("/api/v1/datasets/", "get", "q"), "datahub.datasets.schemas:DatasetListArgsSchema", "q"),
        (
            ("/api/v1/datasets/", "get", "tag"),
            "datahub.datasets.schemas:DatasetListArgsSchema",
            "tag",
        ),
    ],
)
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

    from datahub.web.api import InvalidText, TextConverter

    for path, name in (
        ("/api/v1/users/{user_id}", "user_id"),
        ("/api/v1/auth/sessions/{session_id}", "session_id"),
    ):
        document = spec["paths"][path]["parameters"]
        [schema] = [p["schema"] for p in document if p["name"] == name]
        valid = jsonschema_rs.validator_for(schema).is_valid
        converter = TextConverter(None)
        for text in SAMPLES:
            refused = isinstance(converter.to_python(text), InvalidText)
            assert valid(text) != refused, (path, text)


# -- What a client generator needs (tests/clients generates and runs two clients) --------


def operations(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield path, method, operation


def test_every_operation_is_named_summarised_and_described(spec):
    names = [operation.get("operationId") for _, _, operation in operations(spec)]
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", name or "") for name in names), names
    assert len(set(names)) == len(names)
    assert {
        "login",
        "refresh_token",
        "logout",
        "get_me",
        "list_datasets",
        "get_dataset",
        "create_dataset",
        "upload_dataset_file",
        "download_dataset_file",
    } <= set(names)
    tags = {tag["name"]: tag.get("description") for tag in spec["tags"]}
    for path, method, operation in operations(spec):
        assert operation["summary"] and "\n" not in operation["summary"], (path, method)
        assert operation["description"].strip(), (path, method)
        assert all(tags.get(tag) for tag in operation["tags"]), (path, method)


def test_the_document_says_where_and_what(spec):
    assert spec["servers"] == [{"url": "/", "description": "The server that serves this document"}]
    assert "X-Request-ID" in spec["info"]["description"]
    assert "PaginationMetadata" not in spec["components"]["schemas"]  # no view sends it


def test_every_error_is_documented_with_its_body_and_headers(spec):
    error = {"$ref": "#/components/schemas/Error"}
    for path, method, operation in operations(spec):
        for code, response in operation["responses"].items():
            if code == "default":
                response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
            elif int(code) < 400:
                continue
            assert response["content"] == {"application/json": {"schema": error}}, (
                path,
                method,
                code,
            )
            headers = set(response["headers"])
            assert "X-Request-ID" in headers, (path, method, code)
            if code in ("429", "503"):
                assert "Retry-After" in headers, (path, method, code)
            if code == "401":
                assert "WWW-Authenticate" in headers, (path, method, code)
        if operation.get("security") != []:  # every one of those uses the database
            assert "503" in operation["responses"], (path, method)


def test_the_auth_errors_are_documented(spec):
    auth = "/api/v1/auth"
    expected = {
        ("/login", "post"): {"400", "401", "409", "413", "422", "429", "503"},
        ("/refresh", "post"): {"401", "403", "429", "503"},
        ("/logout", "post"): {"403", "503"},
        ("/me", "get"): {"401", "503"},
        ("/me/password", "put"): {"400", "401", "409", "413", "422", "429", "503"},
        ("/sessions/{session_id}", "delete"): {"401", "404", "422", "503"},
        ("/oidc/callback", "get"): {"401", "404", "409", "429", "503"},
    }
    for (path, method), codes in expected.items():
        documented = set(spec["paths"][auth + path][method]["responses"])
        assert codes <= documented, (path, method, codes - documented)


def test_created_resources_and_downloads_declare_their_headers(spec):
    for path, method, operation in operations(spec):
        if "201" in operation["responses"]:
            assert "Location" in operation["responses"]["201"]["headers"], (path, method)
    download = spec["paths"]["/api/v1/datasets/{dataset_id}/file"]["get"]
    responses = download["responses"]
    for code in ("200", "206"):
        content = responses[code]["content"]
        # Generators read the first media type: the bytes, never text or JSON.
        assert next(iter(content)) == "application/octet-stream"
        assert all(media["schema"]["format"] == "binary" for media in content.values())
        assert {
            "ETag",
            "Last-Modified",
            "Content-Length",
            "Accept-Ranges",
            "Content-Disposition",
        } <= set(responses[code]["headers"])
    assert "Content-Range" in responses["206"]["headers"]
    assert "content" not in responses["304"]
    assert {p["name"] for p in download["parameters"]} == {
        "Range",
        "If-Range",
        "If-None-Match",
        "If-Modified-Since",
        "If-Match",
        "If-Unmodified-Since",
    }
    assert "Precondition Failed" in responses["412"]["description"]


def test_a_raw_upload_takes_any_media_type(spec):
    body = spec["paths"]["/api/v1/datasets/{dataset_id}/file"]["put"]["requestBody"]
    assert body["required"] is True
    for media in ("application/octet-stream", "*/*"):
        assert body["content"][media]["schema"]["format"] == "binary"
    stored = spec["components"]["schemas"]["DatasetFile"]["properties"]["content_type"]
    assert "the client sent" in stored["description"]


def test_the_dataset_file_is_a_nullable_reference(spec):
    schemas = spec["components"]["schemas"]
    assert "File" not in schemas  # a generated Python client has a File type of its own
    assert schemas["Dataset"]["properties"]["file"] == {
        "description": "The current version's file; null until a file is uploaded",
        "allOf": [{"$ref": "#/components/schemas/DatasetFile"}],
        "nullable": True,
    }
    assert schemas["Providers"]["properties"]["oidc"]["allOf"] == [
        {"$ref": "#/components/schemas/OIDCProvider"}
    ]
    # One enumeration, one type: not one per field that takes it.
    for name, field in (("User", "roles"), ("NewUser", "roles"), ("UserUpdate", "roles")):
        assert schemas[name]["properties"][field]["items"] == {"$ref": "#/components/schemas/Role"}


def request_strings(spec):
    """(where, schema) of every string a JSON request body can carry."""
    schemas = spec["components"]["schemas"]

    def walk(schema, where, seen):
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            if name not in seen:
                yield from walk(schemas[name], name, seen | {name})
            return
        for key in ("allOf", "oneOf", "anyOf"):
            for each in schema.get(key, []):
                yield from walk(each, where, seen)
        if schema.get("type") == "string":
            yield where, schema
        for name, each in schema.get("properties", {}).items():
            yield from walk(each, f"{where}.{name}", seen)
        for key in ("items", "additionalProperties"):
            if isinstance(schema.get(key), dict):
                yield from walk(schema[key], f"{where}.{key}", seen)

    for path, method, operation in operations(spec):
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" in content:
            yield from walk(content["application/json"]["schema"], f"{method} {path}", frozenset())


def test_no_request_string_may_hold_a_nul_character(spec):
    """The server refuses NUL in every JSON string (datahub.web.api.Parser): so does the
    document, with a pattern on each (an enumeration or an email address needs none)."""
    import jsonschema_rs

    found = list(request_strings(spec))
    assert len(found) > 50
    for where, schema in found:
        if "enum" in schema or schema.get("format") == "email":
            continue
        assert "pattern" in schema, where
        assert not jsonschema_rs.validator_for(schema).is_valid("a\x00b"), where


PASSWORD_SCHEMAS = (
    ("NewUser", "password"),
    ("UserUpdate", "password"),
    ("PasswordChange", "new_password"),
)


def test_password_bounds_are_in_bytes(spec):
    """The bounds in bytes are stated; those in characters are the widest ones (2 to 72),
    so the document never refuses a password the server accepts."""
    import jsonschema_rs

    from datahub.identity.users.schemas import NewUserSchema

    schemas = spec["components"]["schemas"]
    for name, field in PASSWORD_SCHEMAS:
        schema = schemas[name]["properties"][field]
        assert (schema["x-minBytes"], schema["x-maxBytes"]) == (8, 72)
        assert (schema["minLength"], schema["maxLength"]) == (2, 72)
        assert "8 to 72 bytes of UTF-8" in schema["description"]
        assert "x-minimum" not in schema  # what apispec would make of a min/max validator
        valid = jsonschema_rs.validator_for(schema).is_valid
        for character in ("a", "é", "密", "😀"):
            for count in range(0, 80):
                password = character * count
                accepted = (
                    not NewUserSchema()
                    .validate({"email": "a@example.com", "password": password})
                    .get("password")
                )
                assert valid(password) or not accepted, (character, count)
        assert valid("😀😀") and not valid("😀") and not valid("a" * 73)
        # In bytes, not characters: 4 characters of 3 bytes are enough, 25 are too many.
        assert not NewUserSchema().validate({"email": "a@example.com", "password": "密" * 4})
        assert NewUserSchema().validate({"email": "a@example.com", "password": "密" * 25})


def test_a_password_of_two_emoji_is_accepted(client, spec, auth_headers):
    """Two emoji are 8 bytes: valid for the document and for the server."""
    admin = auth_headers("admin@example.com", roles=["admin"])
    created = client.post(
        "/api/v1/users/", headers=admin, json={"email": "emoji@example.com", "password": "😀😀"}
    )
    assert created.status_code == 201, created.get_json()
    changed = client.patch(
        f"/api/v1/users/{created.get_json()['id']}", headers=admin, json={"password": "🙂🙂"}
    )
    assert changed.status_code == 200, changed.get_json()
    login = client.post(
        "/api/v1/auth/login", json={"email": "emoji@example.com", "password": "🙂🙂"}
    )
    assert login.status_code == 200, login.get_json()
    own = client.put(
        "/api/v1/auth/me/password",
        headers={"Authorization": f"Bearer {login.get_json()['access_token']}"},
        json={"current_password": "🙂🙂", "new_password": "😀😀"},
    )
    assert own.status_code < 300, own.get_json()
    short = client.post(
        "/api/v1/users/", headers=admin, json={"email": "short@example.com", "password": "😀"}
    )
    assert short.status_code == 422


def request_body_examples(spec):
    """(path, method, media type, example) of every operation's request body: the media
    type's own example, else its schema's."""
    schemas = spec["components"]["schemas"]
    for path, method, operation in operations(spec):
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            schema = media.get("schema", {})
            if "$ref" in schema:
                schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
            yield path, method, media_type, media.get("example", schema.get("example"))


def test_every_request_body_has_an_example(spec):
    found = list(request_body_examples(spec))
    assert len(found) >= 13
    for path, method, media_type, example in found:
        assert example, (path, method, media_type)
    login = spec["components"]["schemas"]["Login"]["example"]
    assert login["email"].endswith("@example.com")


def test_every_request_body_example_is_accepted(client, spec, actors):
    """Each example sent as it is (ids in the path are resources of the test's own; a
    pipeline's source is an existing dataset): well-formed, never a 400 or 422."""
    from tests.resources import create_collection, create_dataset, upload

    admin = actors["admin"]
    ids = {
        "dataset_id": create_dataset(client, admin.headers, "Example source")["id"],
        "collection_id": create_collection(client, admin.headers, "Example")["id"],
        "user_id": actors["viewer"].id,
        "version": 1,
    }
    group = client.post("/api/v1/groups/", headers=admin.headers, json={"name": "Example group"})
    ids["group_id"] = group.get_json()["id"]
    assert upload(client, admin.headers, ids["dataset_id"], b"a,b\n1,2\n").status_code == 200
    pipeline = client.post(
        "/api/v1/pipelines/",
        headers=admin.headers,
        json={
            "name": "Example",
            "source_dataset_id": ids["dataset_id"],
            "output_dataset_name": "Example output",
        },
    )
    ids["pipeline_id"] = pipeline.get_json()["id"]
    webhook = client.post(
        "/api/v1/webhooks/", headers=admin.headers, json={"url": "https://93.184.215.14/datahub"}
    )
    ids["webhook_id"] = webhook.get_json()["id"]
    for path, method, media_type, example in request_body_examples(spec):
        if path == "/api/v1/auth/me/password":
            continue  # below: it needs the caller's own current password
        url = path.format(**ids)
        if isinstance(example, dict) and "source_dataset_id" in example:
            example = {**example, "source_dataset_id": ids["dataset_id"]}
        if isinstance(example, dict) and "url" in example:  # a public address, no DNS
            example = {**example, "url": "https://93.184.215.14/datahub"}
        if isinstance(example, dict) and "principal" in example:
            example = {**example, "principal": f"user:{ids['user_id']}"}
        if path.startswith("/api/v1/query"):  # a dataset with a file: the example source
            example = {**example, "sql": 'SELECT * FROM "Example source" LIMIT 5'}
        if path.endswith("/columns"):  # a column the example dataset's current file has
            current = client.get(url, headers=admin.headers).get_json()["columns"]
            example = {"columns": [{**example["columns"][0], "name": current[0]["name"]}]}
        if media_type == "application/json":
            kwargs = {"json": example}
        elif media_type == "multipart/form-data":
            kwargs = {
                "data": {"file": (io.BytesIO(example["file"].encode()), "weather.csv")},
                "content_type": media_type,
            }
        else:
            kwargs = {
                "data": example.encode(),
                "content_type": "text/csv" if media_type == "*/*" else media_type,
            }
        response = client.open(url, method=method.upper(), headers=admin.headers, **kwargs)
        assert response.status_code < 300 or (path, response.status_code) == (
            "/api/v1/auth/login",
            401,
        ), (path, method, media_type, response.get_json())
    change = spec["components"]["schemas"]["PasswordChange"]["example"]
    email = "changer@example.com"
    client.post(
        "/api/v1/users/",
        headers=admin.headers,
        json={"email": email, "password": change["current_password"]},
    )
    token = client.post(
        "/api/v1/auth/login", json={"email": email, "password": change["current_password"]}
    ).get_json()["access_token"]
    response = client.put(
        "/api/v1/auth/me/password", json=change, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code < 300, response.get_json()
