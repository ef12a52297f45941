"""The SQL console (/app/sql) in Chromium against the real service: a dataset uploaded in
the app, a query written in the editor (a name completed), its rows a page at a time, the
CSV export's bytes, a link that runs the query again at its pinned versions in another page
(and unpinned, at the current one), the builder opened from it, an error, axe, 390 px."""

import csv
import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e

ROWS = 60  # more than a page of 50


def cities_csv(scale=1000):
    lines = ["id,city,population"]
    for number in range(1, ROWS + 1):
        population = "" if number == 7 else str(number * scale)
        lines.append(f"{number},City {number},{population}")
    return ("\n".join(lines) + "\n").encode()


def upload_in_the_app(page, name):
    """Creates the dataset ``name`` with its file in the New dataset form (open); its id."""
    page.get_by_label("Name").fill(name)
    page.get_by_label("File", exact=True).set_input_files(
        {"name": "cities.csv", "mimeType": "text/csv", "buffer": cities_csv()}
    )
    page.get_by_role("button", name="Create and upload").click()
    expect(page).to_have_url(re.compile(r"/app/datasets/\d+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    return int(page.url.rsplit("/", 1)[1])


def editor(page):
    return page.get_by_role("textbox", name="SQL query")


def write(page, text):
    """Replaces the editor's text by typing ``text`` (an open completion list closed)."""
    editor(page).click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.type(text)
    page.keyboard.press("Escape")


def editor_text(page):
    return editor(page).text_content().replace("\xa0", " ")


def result(page, first, last, total):
    return page.get_by_role("table", name=f"Query result, rows {first}–{last} of {total}")


def cells(table, row):
    """The texts of the cells of the table's ``row``-th body row (1-based)."""
    return table.locator("tbody tr").nth(row - 1).locator("td").all_text_contents()


def test_write_run_page_export_share_and_make_a_pipeline(signed_in, shoot):
    page, person = signed_in("editor", "/datasets/new")
    name = f"Cities {secrets.token_hex(3)}"
    dataset_id = upload_in_the_app(page, name)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="SQL").click()
    expect(page).to_have_url(re.compile(r"/app/sql$"))
    expect(page.get_by_role("heading", level=1, name="SQL console")).to_be_visible()
    # The dataset is listed beside the editor; its columns open under it.
    datasets = page.get_by_role("list", name="Datasets")
    datasets.get_by_role("button", name=f"Columns of {name}").click()
    expect(page.get_by_role("list", name=f"Columns of {name}")).to_contain_text("population")

    # A name completed as a quoted identifier, then the rest typed; Ctrl+Enter runs.
    editor(page).click()
    page.keyboard.type("SELECT id, city, population FROM Citi")
    page.locator(".cm-tooltip-autocomplete").get_by_text(name, exact=True).wait_for()
    page.wait_for_timeout(200)  # CodeMirror takes no choice in a list's first 75 ms
    page.keyboard.press("Enter")
    page.keyboard.type(" ORDER BY id")
    page.keyboard.press("Escape")
    sql = f'SELECT id, city, population FROM "{name}" ORDER BY id'
    assert editor_text(page) == sql
    editor(page).press("Control+Enter")

    table = result(page, 1, 50, ROWS)
    expect(table).to_be_visible()
    expect(table.locator("thead th")).to_have_text(
        [
            re.compile(r"^id\s+BIGINT$"),
            re.compile(r"^city\s+VARCHAR$"),
            re.compile(r"^population\s+BIGINT$"),
        ]
    )
    assert cells(table, 1) == ["1", "City 1", "1000"]
    assert cells(table, 7) == ["7", "City 7", "NULL"]
    expect(table.locator("tbody tr").nth(6).locator(".sql-null")).to_have_text("NULL")
    expect(
        page.get_by_text(re.compile(rf"^{ROWS} rows, 3 columns, in [\d,]+ ms\.$"))
    ).to_be_visible()
    expect(page.get_by_role("link", name=f"{name}@1")).to_have_attribute(
        "href", f"/app/datasets/{dataset_id}"
    )
    shoot(page, "sql-console")
    page.get_by_role("navigation", name="Result pages").get_by_role("button", name="Next").click()
    expect(result(page, 51, ROWS, ROWS)).to_be_visible()
    assert cells(result(page, 51, ROWS, ROWS), 10) == ["60", "City 60", "60000"]
    check_axe(page)

    # Export: the whole result, as the file the service wrote.
    with page.expect_download() as download:
        page.get_by_role("button", name="Export CSV").click()
    assert download.value.suggested_filename == "query.csv"
    with open(download.value.path(), newline="") as fileobj:
        exported = list(csv.reader(fileobj))
    assert exported[0] == ["id", "city", "population"]
    assert len(exported) == ROWS + 1
    assert exported[1] == ["1", "City 1", "1000"] and exported[7] == ["7", "City 7", ""]

    # The link pins version 1: after a second version it still reads the first.
    link = page.get_by_label("Link to this query").input_value()
    assert f"pins={dataset_id}%401" in link
    person.client.dataset_upload(dataset_id, io.BytesIO(cities_csv(scale=1)), filename="cities.csv")
    shared = page.context.new_page()
    shared.goto(link)
    expect(result(shared, 1, 50, ROWS)).to_be_visible()
    assert editor_text(shared) == sql
    assert cells(result(shared, 1, 50, ROWS), 2) == ["2", "City 2", "2000"]
    pinned = shared.get_by_role("group", name=re.compile("Versions pinned"))
    expect(pinned).to_contain_text(f"{name}@1")
    pinned.get_by_role("button", name="Unpin: run against the current versions").click()
    expect(shared.get_by_role("link", name=f"{name}@2")).to_be_visible()
    assert cells(result(shared, 1, 50, ROWS), 2) == ["2", "City 2", "2"]
    expect(pinned).to_be_hidden()
    shared.close()

    # Make this a pipeline: the builder opens with the source and the SQL step.
    page.get_by_role("button", name="Make this a pipeline").click()
    expect(page).to_have_url(re.compile(rf"/app/pipelines/new\?source={dataset_id}$"))
    expect(page.get_by_role("heading", level=1, name="New pipeline")).to_be_visible()
    expect(page.get_by_label("Source dataset", exact=True)).to_have_value(str(dataset_id))
    step = page.get_by_role("textbox", name="SQL query of step 1")
    expect(step).to_contain_text("SELECT * FROM input")
    expect(step).to_contain_text("ORDER BY id")


def test_an_unknown_table_is_an_error_and_a_query_of_no_dataset_is_no_pipeline(signed_in):
    page, _ = signed_in("viewer", "/sql", viewport={"width": 390, "height": 844})
    write(page, "SELECT * FROM no_such_table")
    page.get_by_role("button", name="Run").click()
    alert = page.get_by_role("alert")
    expect(alert).to_have_text("The query failed: Dataset not found: no_such_table")
    check_axe(page)

    write(page, "SELECT 42 AS answer, NULL AS nothing")
    page.get_by_role("button", name="Run").click()
    table = result(page, 1, 1, 1)
    expect(table).to_be_visible()
    assert cells(table, 1) == ["42", "NULL"]
    expect(alert).to_be_hidden()
    expect(page.get_by_text("It read no dataset.")).to_be_visible()
    no_horizontal_scroll(page)
    button = page.get_by_role("button", name="Make this a pipeline")
    expect(button).to_be_disabled()
    expect(
        page.get_by_text("This query reads no dataset: a pipeline needs one source dataset.")
    ).to_be_visible()
    check_axe(page)
