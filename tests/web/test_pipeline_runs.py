"""Runs in the browser: Run now, the status going to succeeded live (no reload), the run's
page with its input and output versions, a reused run, a failed run's error as text."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import check_axe

pytestmark = pytest.mark.e2e

CITIES = b"city,population\nOslo,709000\nBergen,286000\nTromso,77000\n"


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True


@pytest.fixture(scope="module")
def cities(admin_client):
    dataset = admin_client.dataset_create(f"run-cities-{secrets.token_hex(3)}")
    admin_client.dataset_upload(dataset["id"], io.BytesIO(CITIES), filename="cities.csv")
    return dataset


def make_pipeline(client, source, steps):
    name = f"runs-{secrets.token_hex(3)}"
    return client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": name,
            "source_dataset_id": source["id"],
            "output_dataset_name": f"{name}-out",
            "steps": steps,
        },
    )


STEPS = [
    {"op": "filter", "column": "population", "operator": "ge", "value": 100000},
    {"op": "sql", "query": "SELECT city FROM input ORDER BY city"},
]


def test_run_now_succeeds_live_and_the_run_page_links_its_versions(
    signed_in, admin_client, cities, shoot
):
    pipeline = make_pipeline(admin_client, cities, STEPS)
    page, _ = signed_in("admin", f"/pipelines/{pipeline['id']}")
    expect(page.get_by_text("No runs yet")).to_be_visible()
    page.get_by_role("button", name="Run now").click()
    runs = page.get_by_role("table", name=re.compile("Runs of this pipeline"))
    first = runs.locator("tbody tr").first
    # the event stream refreshes the list: no reload, no polling
    expect(first.get_by_text("succeeded")).to_be_visible(timeout=20_000)
    expect(first).to_contain_text("2")  # rows written
    expect(page.get_by_role("status").filter(has_text="succeeded")).to_have_count(1)
    check_axe(page)

    first.get_by_role("link", name=re.compile(r"Run \d+")).click()
    expect(page).to_have_url(re.compile(rf"/app/pipelines/{pipeline['id']}/runs/\d+$"))
    expect(page.get_by_role("heading", level=1, name=re.compile(r"Run \d+"))).to_be_visible()
    output = page.get_by_role("link", name=f"{pipeline['output_dataset_name']}, version 1")
    run_id = int(page.url.rsplit("/", 1)[1])
    run = admin_client.run_get(pipeline["id"], run_id)
    expect(output).to_have_attribute(
        "href", f"/app/datasets/{run['output']['dataset_id']}/versions"
    )
    source = page.get_by_role("link", name=f"{cities['name']}, version 1")
    expect(source).to_have_attribute("href", f"/app/datasets/{cities['id']}/versions")
    expect(page.get_by_role("button", name="Cancel run")).to_have_count(0)  # finished
    check_axe(page)
    shoot(page, "pipeline-run")

    # the same definition and inputs again: the run reuses the first one's output
    page.get_by_role("link", name=pipeline["name"], exact=True).click()
    page.get_by_role("button", name="Run now").click()
    expect(runs.locator("tbody tr")).to_have_count(2)
    expect(runs.locator("tbody tr").first.get_by_text("succeeded")).to_be_visible(timeout=20_000)
    runs.locator("tbody tr").first.get_by_role("link").click()
    expect(page.get_by_role("link", name=f"Run {run_id}", exact=True)).to_be_visible()
    expect(output).to_be_visible()


def test_a_failed_run_shows_its_error_as_text_and_a_viewer_sees_no_run_button(
    signed_in, admin_client, cities
):
    pipeline = make_pipeline(admin_client, cities, [{"op": "sort", "columns": ["nope"]}])
    run = admin_client.pipeline_run(pipeline["id"])
    admin_client.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=30)
    page, _ = signed_in("viewer", f"/pipelines/{pipeline['id']}/runs/{run['id']}")
    expect(page.get_by_text("failed", exact=True)).to_be_visible()
    expect(page.get_by_text("column 'nope' does not exist")).to_be_visible()
    check_axe(page)
    page.get_by_role("link", name=pipeline["name"], exact=True).click()
    expect(page.get_by_role("heading", level=1, name=pipeline["name"])).to_be_visible()
    expect(page.get_by_role("button", name="Run now")).to_have_count(0)
    expect(page.get_by_role("button", name="Save changes")).to_have_count(0)
