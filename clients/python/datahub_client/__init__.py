"""A Python client for datahub, following the contract's guidance for clients:
the access token lives in memory only and is renewed through the refresh cookie on
401 ``Token has expired``; only 500/502/503/504 are retried, at most 3 times, after
1, 2 and 4 seconds (or a longer ``Retry-After``), and only idempotent requests.

    from datahub_client import Client
    client = Client("https://datahub.example.com")
    client.login("ann@example.com", password)
    client.me()
    dataset = client.dataset_create("Oslo weather", tags=["weather"])
    client.dataset_upload(dataset["id"], "weather.csv", progress=print)
    client.dataset_download(dataset["id"], "copy.csv")
    client.grant_add("dataset", dataset["id"], group_principal(3), "read")
    client.dataset_set_visibility(dataset["id"], "internal")

``Client(url, token="dhp_...")`` uses a personal access token instead of a login (made
with ``client.tokens_create(...)`` or the web app's Tokens page; a 401 is then final).

The ``datahub`` command (``datahub_client.cli``) is built on it.
"""

from datahub_client.access import group_principal, user_principal
from datahub_client.api import Client, SeedRetry
from datahub_client.errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DatahubError,
    NotFoundError,
    NotReadyError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
    UnreachableError,
    ValidationError,
)

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConflictError",
    "DatahubError",
    "NotFoundError",
    "NotReadyError",
    "PermissionDeniedError",
    "RateLimitedError",
    "SeedRetry",
    "ServerError",
    "UnreachableError",
    "ValidationError",
    "group_principal",
    "user_principal",
]
