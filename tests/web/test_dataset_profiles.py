"""A version's statistics on the Schema tab, computed by the pipeline worker after the
upload (pending, then each column with its charts and their tables), and the drift of two
versions in their comparison, in Chromium."""

import io
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe

pytestmark = pytest.mark.e2e

READINGS = (
    b"station,temp,day\nBlindern,3.5,2026-01-01\nBlindern,,2026-01-02\nFlesland,7.0,2026-01-02\n"
)
LATER = b"station,temp,day\nBlindern,4.5,2026-02-01\nMolde,5.5,2026-02-02\n"


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True  # it profiles the versions


def test_statistics_and_drift(signed_in, server, shoot):
    page, person = signed_in("editor")
    dataset = person.client.dataset_create(f"readings-{secrets.token_hex(4)}")
    person.client.dataset_upload(dataset["id"], io.BytesIO(READINGS), filename="readings.csv")
    page.goto(app_url(server, f"/datasets/{dataset['id']}/schema"))
    statistics = page.get_by_role("region", name="Statistics")
    temp = statistics.get_by_role("article", name="temp DOUBLE")
    expect(temp).to_be_visible(timeout=15000)  # once the worker has read the version
    expect(temp.locator("dt", has_text="Nulls").locator("+ dd")).to_have_text("1 (33.3%)")
    expect(
        temp.get_by_role("img", name="Distribution of temp: 20 ranges from 3.5 to 7")
    ).to_be_visible()
    station = statistics.get_by_role("article", name="station VARCHAR")
    expect(station.get_by_role("img", name="Most frequent values of station")).to_be_visible()
    station.get_by_text("As a table").click()
    table = station.get_by_role("table", name="Most frequent values of station")
    expect(table.get_by_role("row", name="Blindern 2")).to_be_visible()
    expect(
        statistics.get_by_role("button", name="Download the Data Package (datapackage.json)")
    ).to_be_visible()
    check_axe(page)
    shoot(page, "dataset-statistics")

    person.client.dataset_upload(dataset["id"], io.BytesIO(LATER), filename="readings.csv")
    person.client.dataset_profile(dataset["id"], 2, wait=15)
    page.goto(app_url(server, f"/datasets/{dataset['id']}/versions/compare?from=1&to=2"))
    drift = page.get_by_role("table", name="Drift of the columns' statistics")
    expect(drift.get_by_role("row", name="station new: Molde; gone: Flesland")).to_be_visible()
    expect(drift.get_by_role("rowheader", name="temp")).to_be_visible()
    check_axe(page)
