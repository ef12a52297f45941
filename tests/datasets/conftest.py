import os

import pytest

from tests.resources import actors  # noqa: F401  (fixture)


@pytest.fixture(params=["local", "s3"])
def backend(request):
    """The storage backend a test runs on (modules that use it run each test twice)."""
    return request.param


@pytest.fixture
def backend_config(backend, tmp_path, request):
    """A storage of the test's own: a folder, or a prefix of the moto bucket."""
    if backend == "local":
        return {"STORAGE_PATH": str(tmp_path / "storage")}
    return request.getfixturevalue("s3_server").config(request.getfixturevalue("s3_prefix"))


@pytest.fixture
def stored(app, backend, request):
    """``stored()``: the names in storage, sorted: stored files and temporary files, or
    objects and incomplete multipart uploads (as ``.upload-<name>``)."""
    if backend == "s3":
        server, prefix = request.getfixturevalue("s3_server"), request.getfixturevalue("s3_prefix")
        return lambda: server.listing(prefix)
    path = app.config["STORAGE_PATH"]
    return lambda: sorted(os.listdir(path)) if os.path.isdir(path) else []
