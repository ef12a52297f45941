"""A walk-through of the service with the client that openapi-python-client generates from
the served document, as a third-party developer would write it (run by
test_python_client.py, with the generated package ``datahub_openapi_client`` on the path).

Usage: python python_walkthrough.py BASE_URL EMAIL PASSWORD

Two things the generated client cannot do by itself, done with its public options:

* The refresh cookie is ``__Secure-`` and Secure, so no cookie jar sends it over plain
  http (the test server's): it is passed explicitly, with ``Client.with_cookies``.
* A raw body's Content-Type is fixed by the generator (application/octet-stream, the one
  binary type it knows): a raw CSV upload sets text/csv with an httpx request hook. A
  multipart upload needs none, as the part's type is the ``File``'s ``mime_type``.
"""

import hashlib
import io
import sys
import uuid
from http.cookies import SimpleCookie

from datahub_openapi_client import AuthenticatedClient, Client
from datahub_openapi_client.api.auth import (
    create_token,
    delete_token,
    get_me,
    login,
    logout,
    refresh_token,
)
from datahub_openapi_client.api.datasets import (
    add_dataset_grant,
    create_dataset,
    download_dataset_file,
    get_dataset,
    list_dataset_grants,
    list_datasets,
    update_dataset,
    upload_dataset_file,
)
from datahub_openapi_client.api.groups import create_group
from datahub_openapi_client.api.query import query
from datahub_openapi_client.models import (
    Dataset,
    DatasetCreate,
    DatasetPage,
    DatasetUpdate,
    Error,
    GrantCreate,
    GroupCreate,
    Login,
    Message,
    Permission,
    PersonalTokenCreate,
    PersonalTokenCreateScopesItem,
    Query,
    QueryResult,
    Token,
    UploadDatasetFileFilesBody,
    ValidationItem,
    VersionPin,
    Visibility,
)
from datahub_openapi_client.types import File

CSV = "city,temp\nBergen,7\nTromsø,-3\n".encode()


def step(text):
    print(f"- {text}", flush=True)


def refresh_cookie(response):
    """(name, value) of the refresh cookie a response sets."""
    cookies = SimpleCookie()
    for header in response.headers.get_list("set-cookie"):
        cookies.load(header)
    [(name, morsel)] = [(n, m) for n, m in cookies.items() if "refresh_token" in n]
    assert morsel["httponly"] and morsel["secure"] and morsel["path"] == "/api/v1/auth"
    return name, morsel.value


def as_csv(request):
    """httpx request hook: the raw body is a CSV file."""
    if request.headers.get("Content-Type") == "application/octet-stream":
        request.headers["Content-Type"] = "text/csv"


def main(base_url, email, password):
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)

    step("login")
    response = login.sync_detailed(client=anonymous, body=Login(email=email, password=password))
    assert response.status_code == 200, response.content
    assert isinstance(response.parsed, Token) and response.parsed.token_type == "bearer"
    cookie = refresh_cookie(response)

    step("refresh with the refresh cookie, passed explicitly")
    response = refresh_token.sync_detailed(client=anonymous.with_cookies(dict([cookie])))
    assert response.status_code == 200, response.content
    assert isinstance(response.parsed, Token)
    access_token = response.parsed.access_token
    cookie = refresh_cookie(response)  # rotated
    client = AuthenticatedClient(
        base_url=base_url, token=access_token, raise_on_unexpected_status=True
    )

    step("create a dataset")
    name = f"weather {uuid.uuid4().hex[:8]}"
    response = create_dataset.sync_detailed(
        client=client, body=DatasetCreate(name=name, description="Daily", tags=["weather"])
    )
    assert response.status_code == 201, response.content
    dataset = response.parsed
    assert isinstance(dataset, Dataset) and dataset.name == name and dataset.file is None
    assert response.headers["Location"] == f"/api/v1/datasets/{dataset.id}"

    step("upload the CSV as multipart/form-data, typed text/csv")
    response = upload_dataset_file.sync_detailed(
        dataset.id,
        client=client,
        body=UploadDatasetFileFilesBody(
            file=File(payload=io.BytesIO(CSV), file_name="weather.csv", mime_type="text/csv")
        ),
    )
    assert response.status_code == 200, response.content
    assert response.parsed.file.content_type == "text/csv"
    assert response.parsed.file.filename == "weather.csv"

    step("upload it again raw, as text/csv")
    raw = AuthenticatedClient(
        base_url=base_url,
        token=access_token,
        raise_on_unexpected_status=True,
        httpx_args={"event_hooks": {"request": [as_csv]}},
    )
    response = upload_dataset_file.sync_detailed(
        dataset.id, client=raw, body=File(payload=io.BytesIO(CSV)), filename="raw.csv"
    )
    assert response.status_code == 200, response.content
    stored = response.parsed.file
    assert stored.content_type == "text/csv", stored.content_type
    assert stored.filename == "raw.csv"
    assert stored.size_bytes == len(CSV)
    assert stored.sha256 == hashlib.sha256(CSV).hexdigest()

    step("download it: the same bytes, type and ETag")
    response = download_dataset_file.sync_detailed(dataset.id, client=client)
    assert response.status_code == 200, response.content
    assert isinstance(response.parsed, File)
    assert response.parsed.payload.read() == CSV
    assert response.headers["Content-Type"].startswith("text/csv")
    etag = response.headers["ETag"]
    assert etag == f'"{stored.sha256}"'

    step("download a range, and a 304 with the ETag")
    response = download_dataset_file.sync_detailed(dataset.id, client=client, range_="bytes=0-8")
    assert response.status_code == 206
    assert response.parsed.payload.read() == CSV[:9]
    assert response.headers["Content-Range"] == f"bytes 0-8/{len(CSV)}"
    response = download_dataset_file.sync_detailed(dataset.id, client=client, if_none_match=etag)
    assert response.status_code == 304

    step("list datasets")
    page = list_datasets.sync(client=client, q=name)
    assert isinstance(page, DatasetPage) and page.total == 1
    assert [item.id for item in page.items] == [dataset.id]
    assert page.items[0].capabilities.write and page.items[0].capabilities.manage
    assert page.items[0].file.content_type == "text/csv"

    step("the SQL console: one SELECT over the dataset by its name, pinned to version 1")
    pins = [VersionPin(dataset_id=dataset.id, version=1)]
    sql = f'SELECT city, temp FROM "{name}" ORDER BY temp'
    response = query.sync_detailed(client=client, body=Query(sql=sql, limit=1, pins=pins))
    assert response.status_code == 200, response.content
    result = response.parsed
    assert isinstance(result, QueryResult) and result.truncated
    assert [column.name for column in result.columns] == ["city", "temp"]
    assert result.rows == [["Tromsø", -3]]
    assert [(read.dataset_id, read.version) for read in result.inputs] == [(dataset.id, 1)]
    response = query.sync_detailed(client=client, body=Query(sql="SELECT * FROM no_such_table"))
    assert response.status_code == 422
    assert response.parsed.detail == "Dataset not found: no_such_table"

    step("a 404's detail, read from the generated error model")
    response = get_dataset.sync_detailed(10**9, client=client)
    assert response.status_code == 404
    assert isinstance(response.parsed, Error)
    assert response.parsed.detail == "Dataset not found"

    step("a 422's detail: a list of validation items")
    response = create_dataset.sync_detailed(client=client, body=DatasetCreate(name=""))
    assert response.status_code == 422
    [item] = response.parsed.detail
    assert isinstance(item, ValidationItem) and item.loc == ["body", "name"], item

    step("make the dataset private and share it with a new group")
    response = update_dataset.sync_detailed(
        dataset.id, client=client, body=DatasetUpdate(visibility=Visibility.PRIVATE)
    )
    assert response.status_code == 200 and response.parsed.visibility == Visibility.PRIVATE
    response = create_group.sync_detailed(
        client=client, body=GroupCreate(name=f"readers {uuid.uuid4().hex[:8]}")
    )
    assert response.status_code == 201, response.content
    grant = GrantCreate(principal=f"group:{response.parsed.id}", permission=Permission.READ)
    response = add_dataset_grant.sync_detailed(dataset.id, client=client, body=grant)
    assert response.status_code == 201, response.content
    assert response.parsed.principal == grant.principal
    page = list_dataset_grants.sync(dataset.id, client=client)
    assert [item.principal for item in page.items] == [grant.principal]

    step("a read-only personal access token: reads, cannot write, revoked at once")
    body = PersonalTokenCreate(name="walk-through", scopes=[PersonalTokenCreateScopesItem.READ])
    response = create_token.sync_detailed(client=client, body=body)
    assert response.status_code == 201, response.content
    created = response.parsed
    assert created.token.startswith("dhp_") and created.last_used_at is None
    script = AuthenticatedClient(
        base_url=base_url, token=created.token, raise_on_unexpected_status=True
    )
    assert get_dataset.sync(dataset.id, client=script).name == name
    response = create_dataset.sync_detailed(client=script, body=DatasetCreate(name=name + " 2"))
    assert (response.status_code, response.parsed.detail) == (403, "Forbidden")
    assert delete_token.sync_detailed(created.id, client=client).status_code == 204
    response = get_me.sync_detailed(client=script)
    assert (response.status_code, response.parsed.detail) == (401, "Invalid token")

    step("logout")
    response = logout.sync_detailed(client=client.with_cookies(dict([cookie])))
    assert response.status_code == 200
    assert isinstance(response.parsed, Message)
    response = refresh_token.sync_detailed(client=anonymous.with_cookies(dict([cookie])))
    assert response.status_code == 401
    assert response.parsed.detail == "Token has been revoked"
    print("walk-through done", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
