"""A real S3 server for the tests: moto's, started as a process on a free port.

Fixtures (a pytest plugin, registered in tests/conftest.py):

* ``s3_server`` (session): an :class:`S3Server` with a bucket; it fails the test loudly
  when the server cannot start. Also sets AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY=testing
  and AWS_DEFAULT_REGION=us-east-1 in this process's environment for the session, so
  in-process apps and the servers tests start (which inherit it) find credentials.
* ``s3_prefix``: a fresh prefix for one test, emptied (objects and incomplete uploads)
  afterwards.

``S3Server.config(prefix)`` is an app's config (``STORAGE_URL`` ...) and
``S3Server.env(prefix)`` the same as DATAHUB_* environment variables for gunicorn.
"""

import os
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest

from tests.processes import popen, stop
from tests.workers import free_port

BUCKET = "datahub-tests"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}


class S3Server:
    def __init__(self, process, url, log_path, bucket=BUCKET):
        self.process, self.url, self.log_path, self.bucket = process, url, log_path, bucket
        self._client = None

    @classmethod
    def start(cls, log_path, bucket=BUCKET, timeout=30):
        """Start ``python -m moto.server`` and create ``bucket``; raises RuntimeError when
        the server does not answer within ``timeout`` seconds."""
        port = free_port()
        with open(log_path, "wb") as log:
            process = popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **CREDENTIALS},
            )
        server = cls(process, f"http://127.0.0.1:{port}", log_path, bucket)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(server.url + "/", timeout=2):
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                stop(process)
                raise RuntimeError(
                    "the moto S3 server did not start:\n" + log_path.read_text(errors="replace")
                )
            time.sleep(0.1)
        server.client().create_bucket(Bucket=bucket)
        return server

    def stop(self):
        stop(self.process)

    def client(self):
        """A boto3 S3 client of this server (credentials given explicitly)."""
        if self._client is None:
            import boto3
            from botocore.config import Config

            self._client = boto3.client(
                "s3",
                endpoint_url=self.url,
                region_name="us-east-1",
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
                config=Config(s3={"addressing_style": "path"}),
            )
        return self._client

    def config(self, prefix, **extra):
        """App settings storing files under ``prefix`` of the bucket."""
        return {"STORAGE_URL": f"s3://{self.bucket}/{prefix}", "S3_ENDPOINT_URL": self.url, **extra}

    def env(self, prefix, **extra):
        """The same as environment variables (gunicorn), credentials included."""
        return {
            "DATAHUB_STORAGE_URL": f"s3://{self.bucket}/{prefix}",
            "DATAHUB_S3_ENDPOINT_URL": self.url,
            **CREDENTIALS,
            **{f"DATAHUB_{name}": str(value) for name, value in extra.items()},
        }

    def objects(self, prefix):
        """The object names (the part after ``prefix/``) under ``prefix``, sorted."""
        pages = (
            self.client()
            .get_paginator("list_objects_v2")
            .paginate(Bucket=self.bucket, Prefix=f"{prefix}/")
        )
        return sorted(
            item["Key"][len(prefix) + 1 :] for page in pages for item in page.get("Contents", [])
        )

    def uploads(self, prefix):
        """The incomplete multipart uploads under ``prefix``: their object names, sorted."""
        found = self.client().list_multipart_uploads(Bucket=self.bucket, Prefix=f"{prefix}/")
        return sorted(upload["Key"][len(prefix) + 1 :] for upload in found.get("Uploads", []))

    def listing(self, prefix):
        """Objects, then each incomplete upload as ``.upload-<name>`` (as the local
        folder shows a temporary file): what a test compares before and after."""
        return self.objects(prefix) + [f".upload-{name}" for name in self.uploads(prefix)]

    def empty(self, prefix):
        client = self.client()
        for upload in client.list_multipart_uploads(Bucket=self.bucket, Prefix=f"{prefix}/").get(
            "Uploads", []
        ):
            client.abort_multipart_upload(
                Bucket=self.bucket, Key=upload["Key"], UploadId=upload["UploadId"]
            )
        for name in self.objects(prefix):
            client.delete_object(Bucket=self.bucket, Key=f"{prefix}/{name}")


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    try:
        server = S3Server.start(tmp_path_factory.mktemp("s3") / "moto.log")
    except RuntimeError as exc:
        pytest.fail(str(exc))
    with pytest.MonkeyPatch.context() as patch:
        for name, value in CREDENTIALS.items():
            patch.setenv(name, value)
        yield server
    server.stop()


@pytest.fixture
def s3_prefix(s3_server):
    prefix = f"t-{uuid.uuid4().hex[:12]}"
    yield prefix
    s3_server.empty(prefix)
