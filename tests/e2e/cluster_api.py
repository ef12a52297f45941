"""Talking to the cluster of tests/e2e/cluster.py in its tests: as a user, through one
host or nginx; a pipeline to run; waiting for a run."""

import secrets
import time

import requests

from tests.e2e import cluster as topology

API = "/api/v1"


class Api:
    """Requests to one address (a host, or nginx) as one user."""

    def __init__(self, url, verify=True):
        self.url, self.verify = url, verify
        self.http = requests.Session()
        self.token = None

    def call(self, method, path, **kwargs):
        headers = kwargs.pop("headers", {})
        if self.token:
            headers.setdefault("Authorization", f"Bearer {self.token}")
        return self.http.request(
            method, self.url + API + path, headers=headers, verify=self.verify, timeout=30, **kwargs
        )

    def login(self, email=topology.ADMIN_EMAIL, password=topology.ADMIN_PASSWORD):
        response = self.call("POST", "/auth/login", json={"email": email, "password": password})
        assert response.status_code == 200, response.text
        self.token = response.json()["access_token"]
        return self

    def as_token(self, token):
        self.token = token
        return self


def hosts(the_cluster):
    return [Api(host.url) for host in the_cluster.hosts]


def through_nginx(the_cluster):
    return Api(the_cluster.nginx.url, verify=the_cluster.ca_file)


def wait_for_run(api, pipeline_id, run_id, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        run = api.call("GET", f"/pipelines/{pipeline_id}/runs/{run_id}").json()
        if run["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return run
        time.sleep(0.2)


def make_pipeline(api, rows=3):
    source = api.call("POST", "/datasets/", json={"name": "cities " + secrets.token_hex(4)})
    assert source.status_code == 201, source.text
    source_id = source.json()["id"]
    body = "city,population\n" + "".join(f"c{i},{i}\n" for i in range(rows))
    assert (
        api.call(
            "PUT",
            f"/datasets/{source_id}/file",
            data=body.encode(),
            headers={"Content-Type": "text/csv"},
        ).status_code
        == 200
    )
    pipeline = api.call(
        "POST",
        "/pipelines/",
        json={
            "name": "big cities " + secrets.token_hex(4),
            "source_dataset_id": source_id,
            "output_dataset_name": "big cities out " + secrets.token_hex(4),
            "steps": [
                {"op": "filter", "column": "population", "operator": "ge", "value": 1},
                {"op": "sort", "columns": ["population"], "descending": True},
            ],
        },
    )
    assert pipeline.status_code == 201, pipeline.text
    return pipeline.json()["id"]
