"""The dataset page's Lineage tab after a pipeline run: the graph (lazily loaded, drawn under
the service's real Content-Security-Policy), nodes that lead to their dataset or run, hidden
nodes, and the table fallback."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe, sign_in

pytestmark = pytest.mark.e2e

CSV = b"id,name\n1,Ann\n2,Bob\n3,Cid\n"


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True


@pytest.fixture(scope="module")
def lineage_world(make_user):
    """An editor's source dataset, a pipeline reading it, one succeeded run, its output."""
    owner = make_user("editor")
    tag = secrets.token_hex(4)
    source = owner.client.dataset_create(f"lineage-source-{tag}")
    owner.client.dataset_upload(
        source["id"], io.BytesIO(CSV), filename="people.csv", content_type="text/csv"
    )
    pipeline = owner.client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": f"lineage-pipeline-{tag}",
            "source_dataset_id": source["id"],
            "steps": [{"op": "limit", "count": 2}],
            "output_dataset_name": f"lineage-output-{tag}",
        },
    )
    run = owner.client.pipeline_run(pipeline["id"])
    run = owner.client.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=60)
    assert run["status"] == "succeeded", run
    return {
        "owner": owner,
        "source": source,
        "pipeline": pipeline,
        "run": run,
        "output_id": run["output"]["dataset_id"],
        "output_name": f"lineage-output-{tag}",
    }


def graph(page):
    return page.get_by_role("figure", name=re.compile("The graph"))


def test_the_graph_and_its_table_show_the_run_and_nodes_lead_there(
    signed_in, server, lineage_world, shoot
):
    world = lineage_world
    page, _ = signed_in("admin", path=f"/datasets/{world['source']['id']}/lineage")
    expect(graph(page).locator(".react-flow__node")).to_have_count(3)
    run_label = f"Pipeline {world['pipeline']['id']} · run #{world['run']['id']}"
    expect(graph(page).get_by_role("link", name=run_label)).to_be_visible()
    nodes = page.get_by_role("table", name="Nodes")
    expect(nodes.get_by_role("row")).to_have_count(4)
    expect(nodes).to_contain_text(f"{world['output_name']} · version 1")
    edges = page.get_by_role("table", name="Edges")
    expect(edges.get_by_role("row")).to_have_count(3)
    check_axe(page)
    shoot(page, "dataset-lineage")

    page.get_by_label("Direction").select_option("upstream")
    expect(page).to_have_url(re.compile(r"direction=upstream"))
    expect(graph(page).locator(".react-flow__node")).to_have_count(1)
    page.get_by_label("Direction").select_option("both")
    expect(graph(page).locator(".react-flow__node")).to_have_count(3)

    graph(page).get_by_role("link", name=run_label).click()
    expect(page).to_have_url(
        re.compile(rf"/app/pipelines/{world['pipeline']['id']}/runs/{world['run']['id']}$")
    )
    page.go_back()
    output = graph(page).get_by_role("link", name=re.compile(world["output_name"]))
    output.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/app/datasets/{world['output_id']}$"))


def test_a_dataset_the_viewer_may_not_read_is_a_hidden_node(signed_in, server, lineage_world):
    world = lineage_world
    world["owner"].client.dataset_set_visibility(world["output_id"], "private")
    try:
        page, _ = signed_in("viewer", path=f"/datasets/{world['source']['id']}/lineage")
        nodes = page.get_by_role("table", name="Nodes")
        expect(nodes.get_by_role("row", name=re.compile("Hidden"))).to_have_count(1)
        expect(nodes).not_to_contain_text(world["output_name"])
        hidden = graph(page).locator(".lineage-node--hidden")
        expect(hidden).to_contain_text("Hidden (you may not see it)")
        expect(hidden.get_by_role("link")).to_have_count(0)
        check_axe(page)
    finally:
        world["owner"].client.dataset_set_visibility(world["output_id"], "internal")


def test_the_graph_draws_under_the_real_content_security_policy(browser, server, lineage_world):
    """No bypass: the graph's stylesheet is a file (style-src 'self'), nothing inline."""
    context = browser.new_context()
    page = context.new_page()
    problems = []
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    sign_in(
        page,
        server,
        "admin@example.com",
        server.admin_password(),
        f"/datasets/{lineage_world['source']['id']}/lineage",
    )
    response = page.request.get(app_url(server, "/"))
    assert "style-src 'self'" in response.headers["content-security-policy"]
    node = graph(page).locator(".react-flow__node").first
    expect(node).to_be_visible()
    # xyflow's own stylesheet applied (a file, allowed): nodes are placed absolutely
    assert node.evaluate("n => getComputedStyle(n).position") == "absolute"
    box = graph(page).locator(".react-flow").bounding_box()
    assert box and box["height"] > 300
    assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems
    context.close()
