"""GET /metrics (datahub.web.metrics, datahub.platform.metrics): request counts by URL
rule, run and gauge metrics, and who may read them. The gunicorn side (several workers): tests/e2e/test_metrics_gunicorn.py."""

import pytest

from datahub import create_app
from datahub.platform.errors import ConfigurationError
from datahub.platform.metrics import observe_run
from tests.metrics_samples import label_values, samples, value
from tests.pipelines.helpers import PEOPLE, create_pipeline, source, start

NOT_FOUND = {"detail": "Not Found"}


def scrape(client, **kwargs):
    response = client.get("/metrics", **kwargs)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/plain"
    return samples(response.get_data(as_text=True))


def requests_total(found, route, status, method="GET"):
    return value(
        found, "datahub_http_requests_total", method=method, route=route, status=str(status)
    )


def test_requests_are_counted_by_url_rule_method_and_status(client):
    rule = "/api/v1/datasets/<id:dataset_id>"
    before = scrape(client)
    for dataset_id in (1, 2, 987654321):  # three paths, one rule
        assert client.get(f"/api/v1/datasets/{dataset_id}").status_code == 401
    assert client.get("/healthz").status_code == 200
    assert client.get("/no/such/path/123").status_code == 404
    assert client.open("/healthz", method="BREW").status_code == 405
    after = scrape(client)

    assert requests_total(after, rule, 401) - requests_total(before, rule, 401) == 3
    assert requests_total(after, "/healthz", 200) - requests_total(before, "/healthz", 200) == 1
    assert requests_total(after, "unmatched", 404) - requests_total(before, "unmatched", 404) == 1
    assert (
        requests_total(after, "unmatched", 405, "other")
        - requests_total(before, "unmatched", 405, "other")
    ) == 1
    # Never the raw path, nor a method the client made up: the label values stay few.
    routes = label_values(after, "route")
    assert not any("987654321" in route or "/no/such" in route for route in routes)
    assert "BREW" not in label_values(after, "method")
    durations = "datahub_http_request_duration_seconds_count"
    assert value(after, durations, route=rule) - value(before, durations, route=rule) == 3
    assert value(after, "datahub_http_request_duration_seconds_bucket", route=rule, le="+Inf") >= 3


def test_metrics_is_not_in_the_openapi_document(client):
    paths = client.get("/api/v1/openapi.json").get_json()["paths"]
    assert not [path for path in paths if "metrics" in path]


@pytest.mark.parametrize("address", ["192.0.2.7", "10.0.0.1", "2001:db8::1"])
def test_other_addresses_get_the_plain_404(client, address):
    response = client.get("/metrics", environ_base={"REMOTE_ADDR": address})
    unknown = client.get("/no-such-thing", environ_base={"REMOTE_ADDR": address})
    assert (response.status_code, response.get_json()) == (404, NOT_FOUND)
    assert response.mimetype == "application/json"
    assert response.get_data() == unknown.get_data()


@pytest.mark.parametrize("address", ["127.0.0.1", "127.5.6.7", "::1", "::ffff:127.0.0.1"])
def test_loopback_is_allowed_by_default(client, address):
    assert "datahub_http_requests_total" in {
        name for name, _ in scrape(client, environ_base={"REMOTE_ADDR": address})
    }


@pytest.mark.parametrize(
    "config_overrides", [{"METRICS_ALLOWED_NETWORKS": "192.0.2.0/24, 2001:db8::/32"}]
)
def test_allowed_networks_are_configurable(client):
    assert scrape(client, environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert scrape(client, environ_base={"REMOTE_ADDR": "2001:db8::5"})
    refused = client.get("/metrics")  # loopback is not in the list any more
    assert (refused.status_code, refused.get_json()) == (404, NOT_FOUND)


@pytest.mark.parametrize("config_overrides", [{"PROXY_FIX_X_FOR": 1}])
def test_the_address_is_the_one_after_the_trusted_proxy(client):
    # nginx on loopback forwarding an outside client: the client's address counts.
    outside = client.get("/metrics", headers={"X-Forwarded-For": "203.0.113.5"})
    assert (outside.status_code, outside.get_json()) == (404, NOT_FOUND)
    # a spoofed loopback before the proxy's own entry does not help
    spoofed = client.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1, 203.0.113.5"})
    assert spoofed.status_code == 404
    assert scrape(client, headers={"X-Forwarded-For": "127.0.0.1"})


@pytest.mark.parametrize(
    "networks, message",
    [
        (["not-a-network"], "'not-a-network' is not a CIDR network"),
        (["10.0.0.1/8"], "'10.0.0.1/8' is not a CIDR network"),  # host bits set: a typo?
        ({"a": 1}, "must be a list of CIDR networks"),
    ],
)
def test_bad_allowed_networks_stop_start_up(base_config, networks, message):
    with pytest.raises(ConfigurationError, match=message):
        create_app({**base_config, "METRICS_ALLOWED_NETWORKS": networks})


def test_runs_are_counted_when_the_executor_reports_them(client):
    before = scrape(client)
    observe_run("succeeded", 2.5)
    observe_run("failed", 0.25)
    observe_run("succeeded", 40)
    after = scrape(client)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("datahub_runs_total", status="succeeded") == 2
    assert delta("datahub_runs_total", status="failed") == 1
    assert delta("datahub_run_duration_seconds_count") == 3
    assert delta("datahub_run_duration_seconds_sum") == pytest.approx(42.75)
    assert delta("datahub_run_duration_seconds_bucket", le="1.0") == 1
    assert delta("datahub_run_duration_seconds_bucket", le="60.0") == 3


def test_a_worker_counts_the_runs_it_finishes(app, client, auth_headers):
    from datahub.pipelines import worker

    headers = auth_headers(roles=("editor",))
    good = create_pipeline(client, headers, source(client, headers)["id"])
    bad = create_pipeline(
        client,
        headers,
        good["source_dataset_id"],
        name="bad",
        output="bad out",
        steps=[{"op": "select", "columns": ["nope"]}],
    )
    before = scrape(client)
    for pipeline in (good, bad):
        start(client, headers, pipeline["id"])
        assert worker.run_once(app) is not None
    after = scrape(client)
    for status in ("succeeded", "failed"):
        assert (
            value(after, "datahub_runs_total", status=status)
            - value(before, "datahub_runs_total", status=status)
            == 1
        )
    assert (
        value(after, "datahub_run_duration_seconds_count")
        - value(before, "datahub_run_duration_seconds_count")
        == 2
    )


def test_gauges_are_read_from_the_database(client, auth_headers):
    found = scrape(client)
    assert value(found, "datahub_runs_queued") == 0
    assert value(found, "datahub_storage_bytes") == 0
    headers = auth_headers(roles=("editor",))
    dataset = source(client, headers)
    start(client, headers, create_pipeline(client, headers, dataset["id"])["id"])
    found = scrape(client)
    assert value(found, "datahub_runs_queued") == 1
    assert value(found, "datahub_storage_bytes") == len(PEOPLE.encode())
