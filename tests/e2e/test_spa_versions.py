"""A dataset's page in the single-page app (below the list, at ``#dataset/ID``): its
versions (download, pin, restore, upload), a diff between two of them and its lineage, in
real headless Chromium against a real gunicorn, as in tests/e2e/test_spa.py.
``DATAHUB_UPDATE_SCREENSHOTS=1`` writes the screenshots into docs/screenshots/."""

import io
import json
from pathlib import Path

import pytest

from tests.e2e.test_spa import (  # noqa: F401  (fixtures)
    api_client,
    browser,
    logged_in_page,
    preview_table,
    screenshots,
    spa_url,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def pipeline_worker():
    return True  # the lineage test runs a pipeline


RAIN_1 = b"date,mm\n2024-01-01,3\n2024-01-02,0\n"
RAIN_2 = b"date,mm\n2024-01-01,4\n2024-01-02,0\n2024-01-03,1\n"
RAIN_4 = b"date,mm\n2024-01-05,2\n"


def upload(api, dataset_id, content, message=None, filename="rain.csv"):
    return api.dataset_upload(
        dataset_id, io.BytesIO(content), filename=filename, content_type="text/csv", message=message
    )


def versions_table(page):
    """The versions as the page shows them: [number (and "current"), size, message, pinned]
    per row, newest first."""
    return [
        [cells[0], cells[3], cells[4], cells[5]]
        for row in page.locator("#versions tr").all()
        for cells in [row.locator("td").all_text_contents()]
    ]


def open_dataset(page, dataset_id):
    page.click(f"#datasets tr[data-id='{dataset_id}']")
    page.wait_for_selector("#dataset-area:not([hidden])")
    assert page.url.endswith(f"#dataset/{dataset_id}")


def test_versions_download_pin_restore_and_upload(gunicorn_server, browser):
    api = api_client(gunicorn_server)
    dataset = api.dataset_create("Bergen rain")
    upload(api, dataset["id"], RAIN_1, message="first")
    upload(api, dataset["id"], RAIN_2)
    context, page, errors = logged_in_page(browser, gunicorn_server)
    open_dataset(page, dataset["id"])
    page.wait_for_selector("#versions tr[data-version='1']")
    assert versions_table(page) == [
        ["2 current", f"{len(RAIN_2)} B", "", ""],
        ["1", f"{len(RAIN_1)} B", "first", ""],
    ]
    assert page.text_content("#versions-total") == "(2)"
    # The current version cannot be restored; every version can be downloaded.
    assert page.locator("#versions tr[data-version='2'] button").all_text_contents() == [
        "Download",
        "Pin",
    ]
    with page.expect_download() as download:
        page.click("#versions tr[data-version='1'] button.download")
    assert download.value.suggested_filename == "rain.csv"
    assert Path(download.value.path()).read_bytes() == RAIN_1

    page.click("#versions tr[data-version='1'] button.pin")
    page.wait_for_selector("#status:has-text('Pinned version 1.')")
    assert versions_table(page)[1] == ["1", f"{len(RAIN_1)} B", "first", "pinned"]
    assert api.dataset_version_get(dataset["id"], 1)["pinned"] is True

    # Restore makes a new, current version with version 1's bytes: the list, the table of
    # versions and the preview show it.
    page.click("#versions tr[data-version='1'] button.restore")
    page.wait_for_selector("#status:has-text('Restored version 1 as version 3.')")
    page.wait_for_selector("#preview-note:has-text('first 2 rows')")
    assert versions_table(page)[0] == [
        "3 current",
        f"{len(RAIN_1)} B",
        "Restored from version 1",
        "",
    ]
    assert api.dataset_get(dataset["id"])["current_version"] == 3
    assert preview_table(page)[1] == [["2024-01-01", "3"], ["2024-01-02", "0"]]
    assert page.is_visible(f"#datasets tr.selected[data-id='{dataset['id']}']")

    # A new version from the page's form, with its message.
    page.set_input_files(
        "#version-file", files=[{"name": "jan.csv", "mimeType": "text/csv", "buffer": RAIN_4}]
    )
    page.fill("#version-message", "only the 5th")
    page.click("#version-form button")
    page.wait_for_selector("#status:has-text('Uploaded jan.csv as version 4.')")
    assert versions_table(page)[0] == ["4 current", f"{len(RAIN_4)} B", "only the 5th", ""]
    assert page.text_content("#versions-total") == "(4)"
    cells = page.locator(f"#datasets tr[data-id='{dataset['id']}'] td").all_text_contents()
    assert cells[3:5] == ["jan.csv", f"{len(RAIN_4)} B"]
    assert errors == []
    context.close()


def test_a_viewer_sees_the_versions_but_no_buttons_that_change_them(gunicorn_server, browser):
    api = api_client(gunicorn_server)
    dataset = api.dataset_create("Read only rain")
    upload(api, dataset["id"], RAIN_1)
    upload(api, dataset["id"], RAIN_2)
    api.request(
        "POST",
        "/api/v1/users/",
        json_body={
            "email": "viewer@example.com",
            "password": "viewer password",
            "roles": ["viewer"],
        },
    )
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # A dataset's address opens its page once logged in.
    page.goto(spa_url(gunicorn_server) + f"#dataset/{dataset['id']}")
    page.wait_for_selector("#login-view:not([hidden])")
    page.fill("#email", "viewer@example.com")
    page.fill("#password", "viewer password")
    page.click("#login-form button")
    page.wait_for_selector("#versions tr[data-version='1']")
    assert page.locator("#versions button").all_text_contents() == ["Download", "Download"]
    assert page.is_hidden("#version-form")
    assert page.is_visible("#diff-form")  # reading is allowed: comparing too
    assert errors == []
    context.close()


def test_the_diff_view_shows_schema_changes_counts_and_samples(
    gunicorn_server, browser, screenshots
):
    api = api_client(gunicorn_server)
    dataset = api.dataset_create("Scores")
    upload(api, dataset["id"], b"id,name,score\n1,Ann,3\n2,Bob,5\n3,Cid,7\n", filename="s.csv")
    upload(
        api,
        dataset["id"],
        b"id,name,score,city\n1,Ann,3,Oslo\n2,Bob,6,Bergen\n4,Dan,1,Oslo\n",
        filename="s.csv",
    )
    one = api.dataset_create("One version")
    upload(api, one["id"], RAIN_1)
    context, page, errors = logged_in_page(browser, gunicorn_server)
    open_dataset(page, dataset["id"])
    page.wait_for_selector("#diff-area:not([hidden])")
    assert (page.input_value("#diff-from"), page.input_value("#diff-to")) == ("1", "2")

    page.fill("#diff-key", "id")
    page.click("#diff-form button")
    page.wait_for_selector("#diff-result:not([hidden])")
    counts = page.locator("#diff-counts .count").all_text_contents()
    assert counts == ["1 added", "1 removed", "1 changed", "1 unchanged"]
    assert page.text_content("#diff-title") == "Version 1 → version 2, rows matched by id"
    assert page.locator("#diff-schema li").all_text_contents() == ["added column city (VARCHAR)"]

    def sample(kind):
        table = page.locator(f"#diff-samples table[data-kind='{kind}']")
        header = table.locator("thead th").all_text_contents()
        rows = [row.locator("td").all_text_contents() for row in table.locator("tbody tr").all()]
        return header, rows

    assert sample("added") == (["id", "name", "score"], [["4", "Dan", "1"]])
    assert sample("removed") == (["id", "name", "score"], [["3", "Cid", "7"]])
    assert sample("changed") == (
        ["", "id", "name", "score"],
        [["from", "2", "Bob", "5"], ["to", "2", "Bob", "6"]],
    )
    differs = page.locator("#diff-samples table[data-kind='changed'] td.differs")
    assert differs.all_text_contents() == ["5", "6"]
    page.screenshot(path=str(screenshots / "versions.png"), full_page=True)

    # Without a key the rows are compared whole: a changed row is one removed, one added.
    page.fill("#diff-key", "")
    page.click("#diff-form button")
    page.wait_for_selector("#diff-title:has-text('rows compared whole')")
    counts = page.locator("#diff-counts .count").all_text_contents()
    assert counts == ["2 added", "2 removed", "0 changed", "1 unchanged"]
    # The service's refusal is said where the result was.
    page.fill("#diff-key", "city")
    page.click("#diff-form button")
    page.wait_for_selector("#diff-error:not([hidden])")
    assert page.text_content("#diff-error") == "Key column 'city' is not a column of both versions"
    assert page.is_hidden("#diff-result")

    # One version: nothing to compare, no form.
    open_dataset(page, one["id"])
    page.wait_for_selector("#versions tr[data-version='1']")
    assert page.is_hidden("#diff-area")
    assert errors == []
    context.close()


def test_the_lineage_shows_the_run_and_the_dataset_upstream(gunicorn_server, browser, screenshots):
    api = api_client(gunicorn_server)
    source = api.dataset_create("Rain source")
    upload(api, source["id"], RAIN_2)
    pipeline = json.loads(
        api.request(
            "POST",
            "/api/v1/pipelines/",
            json_body={
                "name": "First two days",
                "source_dataset_id": source["id"],
                "steps": [{"op": "limit", "count": 2}],
                "output_dataset_name": "Rain, two days",
            },
        ).data
    )
    run = api.pipeline_run(pipeline["id"])  # the embedded worker executes it
    run = api.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=60)
    assert run["status"] == "succeeded", run
    output = run["output"]
    assert output["version"] == 1 and run["inputs"] == [{"dataset_id": source["id"], "version": 1}]

    context, page, errors = logged_in_page(browser, gunicorn_server)
    open_dataset(page, output["dataset_id"])
    page.wait_for_selector("#lineage .node.run")
    center = page.locator("#lineage .node.center")
    run_node = page.locator(f"#lineage .node.run[data-node='run:{run['id']}']")
    upstream = page.locator(f"#lineage a.node.version[href='#dataset/{source['id']}']")
    assert center.locator("text").all_text_contents() == ["Rain, two days", "version 1"]
    assert run_node.locator("text").all_text_contents() == ["First two days", f"run {run['id']}"]
    assert upstream.locator("text").all_text_contents() == ["Rain source", "version 1"]
    assert page.locator("#lineage .edge").count() == 2
    # Upstream is to the left: the source, then the run, then this version.
    xs = [node.bounding_box()["x"] for node in (upstream, run_node, center)]
    assert xs == sorted(xs) and len(set(xs)) == 3
    assert page.text_content("#lineage-note").startswith("Version 1 in the middle")
    page.wait_for_selector("#preview-note:has-text('first 2 rows')")
    page.screenshot(path=str(screenshots / "lineage.png"), full_page=True)

    # A version opens its dataset's page, where the run and the output are downstream.
    upstream.click()
    page.wait_for_selector("#preview-title:has-text('Rain source')")
    page.wait_for_selector(f"#lineage a.node.version[href='#dataset/{output['dataset_id']}']")
    assert page.url.endswith(f"#dataset/{source['id']}")
    assert page.locator("#lineage .node.center").locator("text").all_text_contents() == [
        "Rain source",
        "version 1",
    ]
    assert page.locator("#lineage .node.run").count() == 1
    # Back: the output's page again.
    page.go_back()
    page.wait_for_selector("#preview-title:has-text('Rain, two days')")
    page.wait_for_selector(f"#lineage a.node.version[href='#dataset/{source['id']}']")

    # A dataset that no run made or read has no graph.
    lonely = api.dataset_create("Lonely")
    upload(api, lonely["id"], RAIN_1)
    page.click("#reload")
    page.wait_for_selector("#status:has-text('Loaded at')")
    open_dataset(page, lonely["id"])
    page.wait_for_selector("#lineage-note:has-text('No run made version 1 or read it.')")
    assert page.locator("#lineage svg").count() == 0
    assert errors == []
    context.close()


def test_the_js_client_versions_diff_and_lineage(gunicorn_server, browser):
    """What datahub-client.js offers beyond what the app calls, answered by the service."""
    api = api_client(gunicorn_server)
    source = api.dataset_create("Client source")
    upload(api, source["id"], RAIN_1)
    pipeline = json.loads(
        api.request(
            "POST",
            "/api/v1/pipelines/",
            json_body={
                "name": "Copy",
                "source_dataset_id": source["id"],
                "output_dataset_name": "Client copy",
            },
        ).data
    )
    run = api.pipeline_run(pipeline["id"])
    run = api.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=60)
    assert run["status"] == "succeeded", run
    upload(api, source["id"], RAIN_2, message="more days")
    upload(api, source["id"], RAIN_4)
    context, page, errors = logged_in_page(browser, gunicorn_server)
    answers = page.evaluate(
        """async ([source, pipeline]) => {
        const { DatahubClient } = await import('/app/datahub-client.js');
        const api = new DatahubClient('');
        await api.restore();
        const refused = async (work) => {
          try { await work(); } catch (e) { return [e.status, e.detail]; }
        };
        const answers = {
          dataset: (await api.getDataset(source)).current_version,
          pipeline: (await api.getPipeline(pipeline)).name,
          version: (await api.getVersion(source, 2)).message,
          page: await api.listVersions(source, { limit: 1, offset: 1 }),
          lineage: await api.getLineage(source, { version: 1, direction: "downstream" }),
          current: await refused(() => api.deleteVersion(source, 3)),
          usedByARun: await refused(() => api.deleteVersion(source, 1)),
          forced: await api.deleteVersion(source, 1, { force: true }),
          deleted: await api.deleteVersion(source, 2),
          restored: await api.restoreVersion(source, 3, { message: "again" }),
          updated: await api.updateVersion(source, 4, { pinned: true, message: null }),
          file: await (await api.downloadVersionFile(source, 4)).text(),
          diff: (await api.diffVersions(source, 3, 4, { key: ["date", "mm"] })).rows,
        };
        answers.unknown = await refused(() => api.getVersion(source, 1));
        return answers;
    }""",
        [source["id"], pipeline["id"]],
    )
    output = run["output"]
    assert answers["dataset"] == 3 and answers["pipeline"] == "Copy"
    assert answers["version"] == "more days"
    assert [v["version"] for v in answers["page"]["items"]] == [2]
    assert answers["page"]["total"] == 3
    assert answers["current"] == [409, "Version is current"]
    assert answers["usedByARun"] == [409, "Version is used by a run"]
    assert answers["forced"] is None and answers["deleted"] is None
    assert (answers["restored"]["version"], answers["restored"]["message"]) == (4, "again")
    assert (answers["updated"]["pinned"], answers["updated"]["message"]) == (True, None)
    assert answers["file"] == RAIN_4.decode()
    assert answers["diff"] == {"added": 0, "removed": 0, "changed": 0, "unchanged": 1}
    assert answers["unknown"] == [404, "Version not found"]
    # Version 1 (not the current one) and what the run made of it.
    made, read = f"dataset:{output['dataset_id']}@1", f"dataset:{source['id']}@1"
    assert {node["id"]: node.get("name") for node in answers["lineage"]["nodes"]} == {
        made: "Client copy",
        read: "Client source",
        f"run:{run['id']}": None,
    }
    assert answers["lineage"]["edges"] == [
        {"from": read, "to": f"run:{run['id']}"},
        {"from": f"run:{run['id']}", "to": made},
    ]
    assert errors == []
    context.close()
