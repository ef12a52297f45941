"""Pipelines in the browser: the list, the builder (a form per step, the sql step in
CodeMirror under the real Content-Security-Policy, 422s at their step), keyboard moves,
390 px, and the read-only view of a viewer."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe, no_horizontal_scroll, sign_in

pytestmark = pytest.mark.e2e

CITIES = b"city,population\nOslo,709000\nBergen,286000\nTromso,77000\n"


@pytest.fixture(scope="module")
def cities(admin_client):
    name = f"cities-{secrets.token_hex(3)}"
    dataset = admin_client.dataset_create(name)
    admin_client.dataset_upload(dataset["id"], io.BytesIO(CITIES), filename="cities.csv")
    return {"id": dataset["id"], "name": name}


def step(page, number):
    """The list item of step ``number`` (1-based)."""
    return page.locator("li.pipelines-step").nth(number - 1)


def add_step(page, label):
    page.get_by_label("Step to add").select_option(label=label)
    page.get_by_role("button", name="Add step").click()


def type_sql(page, number, text):
    editor = page.get_by_role("textbox", name=f"SQL query of step {number}")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.keyboard.press("Escape")  # closes an autocompletion list, if one is open
    return editor


def choose_source(page, dataset):
    page.get_by_label("Find: source dataset").fill(dataset["name"])
    source = page.get_by_label("Source dataset", exact=True)
    expect(source.locator("option", has_text=dataset["name"])).to_have_count(1)
    source.select_option(label=f"{dataset['name']} (#{dataset['id']})")


def test_build_a_pipeline_a_422_shows_at_its_step_then_it_saves_and_is_listed(
    signed_in, cities, shoot, admin_client
):
    page, _ = signed_in("admin", "/pipelines")
    expect(page.get_by_role("heading", level=1, name="Pipelines")).to_be_visible()
    page.get_by_role("link", name="New pipeline").click()
    expect(page).to_have_url(re.compile(r"/app/pipelines/new$"))

    name = f"big-cities-{secrets.token_hex(3)}"
    page.get_by_label("Name", exact=True).fill(name)
    choose_source(page, cities)
    add_step(page, "Filter rows")
    first = step(page, 1)
    first.get_by_label("Column").fill("population")
    first.get_by_label("Comparison").select_option(label="is at least")
    first.get_by_label("Value").fill("100000")
    first.get_by_role("button", name="Preview up to here (step 1)").click()
    result = first.get_by_role("table", name="After step 1: the first 2 rows")
    expect(result).to_contain_text("Oslo")
    expect(result).to_contain_text("Bergen")
    expect(result).not_to_contain_text("Tromso")
    expect(result.get_by_role("columnheader")).to_have_count(2)
    add_step(page, "SQL")
    editor = type_sql(page, 2, "DELETE FROM input")
    page.get_by_label("Output dataset name").fill(f"{name}-out")
    check_axe(page)  # the builder, with the SQL editor shown
    shoot(page, "pipeline-builder")

    page.get_by_role("button", name="Create pipeline").click()
    second = step(page, 2)
    expect(second.locator(".field__error")).to_be_visible()
    expect(editor).to_have_attribute("aria-invalid", "true")
    described = editor.get_attribute("aria-describedby")
    assert described and second.locator(f"[id='{described.split()[-1]}']").count() == 1
    expect(step(page, 1).locator(".field__error")).to_have_count(0)
    check_axe(page)
    second.get_by_role("button", name="Preview up to here (step 2)").click()
    expect(second.get_by_role("alert")).to_contain_text("No preview")

    type_sql(page, 2, "SELECT city, population FROM input ORDER BY population DESC")
    second.get_by_role("button", name="Preview up to here (step 2)").click()
    ordered = second.get_by_role("table", name="After step 2: the first 2 rows")
    expect(ordered.locator("tbody tr").first).to_contain_text("Oslo")
    check_axe(page)
    page.get_by_role("button", name="Create pipeline").click()
    expect(page).to_have_url(re.compile(r"/app/pipelines/\d+$"))
    expect(page.get_by_role("heading", level=1, name=name)).to_be_visible()
    expect(page.get_by_text("No runs yet")).to_be_visible()
    saved = admin_client._json("GET", f"/api/v1/pipelines/{page.url.rsplit('/', 1)[1]}")
    assert saved["steps"] == [
        {"op": "filter", "column": "population", "operator": "ge", "value": "100000"},
        {"op": "sql", "query": "SELECT city, population FROM input ORDER BY population DESC"},
    ]

    page.get_by_role("link", name="Pipelines", exact=True).first.click()
    page.get_by_label("Name contains").fill(name)
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(rf"q={name}"))
    card = page.locator("li.pipelines-card")
    expect(card).to_have_count(1)
    expect(card).to_contain_text(cities["name"])
    expect(card).to_contain_text(f"{name}-out (CSV)")
    expect(card).to_contain_text("never run")
    check_axe(page)
    shoot(page, "pipelines-list")
    page.reload()
    expect(page.locator("li.pipelines-card")).to_have_count(1)


def test_the_sql_editor_renders_and_takes_typing_under_the_real_csp(browser, server):
    context = browser.new_context()  # no bypass_csp: the service's policy applies
    page = context.new_page()
    page.set_default_timeout(15_000)
    blocked = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security" in m.text else None)
    sign_in(page, server, "admin@example.com", server.admin_password(), "/pipelines/new")
    add_step(page, "SQL")
    page.locator(".cm-editor").wait_for()
    # CodeMirror mounted its styles without a violation (a <style> element would be one)
    assert blocked == [], blocked
    assert page.locator("style").count() == 0
    editor = type_sql(page, 1, "SELECT 1 AS one FROM input")
    # (the browser shows typed spaces as no-break spaces; the text sent is checked below)
    assert editor.text_content().replace("\xa0", " ") == "SELECT 1 AS one FROM input"
    # CodeMirror's own styles (constructable stylesheets) applied: its root is a flex column.
    shell = page.locator(".cm-editor")
    assert shell.evaluate("e => getComputedStyle(e).display") == "flex"
    assert page.evaluate("document.adoptedStyleSheets.length") > 0
    # highlighted by the SQL language: the keyword is in a span of its own colour
    keyword = page.locator(".cm-line span", has_text="SELECT").first
    line = page.locator(".cm-line").first
    assert keyword.evaluate("e => getComputedStyle(e).color") != line.evaluate(
        "e => getComputedStyle(e).color"
    )
    # Typing over highlighted text, Chromium's own editing wraps the first character in a
    # <span style="color: ..."> (keeping the deleted text's colour); the policy blocks that
    # attribute, and CodeMirror redraws the line from its state anyway: nothing else.
    assert all("style attributes" in text for text in blocked), blocked
    context.close()


def test_steps_move_and_go_by_keyboard_and_the_builder_fits_390_px(signed_in):
    page, _ = signed_in("editor", "/pipelines/new", viewport={"width": 390, "height": 844})
    add_step(page, "Filter rows")
    add_step(page, "SQL")
    add_step(page, "Aggregate")
    expect(page.get_by_role("textbox", name="SQL query of step 2")).to_be_visible()
    no_horizontal_scroll(page)

    up = page.get_by_role("button", name="Move step 2 up")
    up.focus()
    page.keyboard.press("Enter")
    legends = page.locator("li.pipelines-step legend")
    expect(legends.nth(0)).to_have_text("Step 1: SQL")
    expect(legends.nth(1)).to_have_text("Step 2: Filter rows")
    # the moved step is first now: its "up" is off, so the focus went to its "down"
    expect(page.get_by_role("button", name="Move step 1 down")).to_be_focused()
    page.get_by_role("button", name="Remove step 3").focus()
    page.keyboard.press("Enter")
    expect(legends).to_have_count(2)
    expect(page.get_by_role("button", name="Step 2: Filter rows")).to_have_count(0)
    no_horizontal_scroll(page)
    check_axe(page)


def test_a_viewer_reads_a_pipeline_but_cannot_run_change_or_delete_it(
    signed_in, admin_client, cities, server
):
    name = f"viewed-{secrets.token_hex(3)}"
    pipeline = admin_client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": name,
            "source_dataset_id": cities["id"],
            "output_dataset_name": f"{name}-out",
            "steps": [{"op": "sql", "query": "SELECT city FROM input"}],
            "trigger": {"cron": "0 6 * * 1-5", "timezone": "Europe/Oslo"},
        },
    )
    page, _ = signed_in("viewer", f"/pipelines/{pipeline['id']}")
    expect(page.get_by_role("heading", level=1, name=name)).to_be_visible()
    expect(page.get_by_text("Schedule 0 6 * * 1-5 (Europe/Oslo)")).to_be_visible()
    expect(page.get_by_label("SQL query of step 1")).to_have_text("SELECT city FROM input")
    page.get_by_role("button", name="Preview up to here (step 1)").click()
    expect(page.get_by_role("table", name="After step 1: the first 3 rows")).to_contain_text(
        "Tromso"
    )
    for button in ("Run now", "Save changes", "Delete pipeline", "Add step"):
        expect(page.get_by_role("button", name=button)).to_have_count(0)
    page.goto(app_url(server, "/pipelines"))
    expect(page.get_by_role("link", name="New pipeline")).to_have_count(0)
    check_axe(page)


def test_deleting_a_pipeline_asks_first(signed_in, admin_client, cities):
    name = f"doomed-{secrets.token_hex(3)}"
    pipeline = admin_client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={"name": name, "source_dataset_id": cities["id"], "output_dataset_name": name},
    )
    page, _ = signed_in("admin", f"/pipelines/{pipeline['id']}")
    page.get_by_role("button", name="Delete pipeline").click()
    dialog = page.get_by_role("dialog", name=f"Delete the pipeline {name}?")
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
    check_axe(page)
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    page.get_by_role("button", name="Delete pipeline").click()
    dialog.get_by_role("button", name="Delete pipeline").click()
    expect(page).to_have_url(re.compile(r"/app/pipelines$"))
    assert admin_client.pipelines_list(q=name)["total"] == 0
