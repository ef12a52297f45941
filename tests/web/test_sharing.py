"""The dataset page's Sharing tab (the SharingPanel): visibility, a grant to a person found
by name (shown by name and email), the grantee's browser seeing the dataset, a group grant,
removing a grant with confirmation."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from datahub_client.errors import DatahubError
from tests.web.conftest import app_url, check_axe, no_horizontal_scroll, sign_in

pytestmark = pytest.mark.e2e


def sees(person, dataset):
    """Whether the person may read the dataset (a 404 when not: existence is not told)."""
    try:
        person.client.dataset_get(dataset["id"])
    except DatahubError as error:
        assert error.status == 404, error
        return False
    return True


def test_share_a_private_dataset_with_a_person_found_by_name_then_remove_it(
    signed_in, browser, server, make_user, admin_client, shoot
):
    tag = secrets.token_hex(3)
    grantee = make_user("viewer", name=f"Zelda Quux {tag}")
    page, owner = signed_in("editor")
    dataset = owner.client.dataset_create(f"sharing-{tag}")
    owner.client.dataset_upload(
        dataset["id"], io.BytesIO(b"a\n1\n"), filename="a.csv", content_type="text/csv"
    )
    group = admin_client._json(
        "POST", "/api/v1/groups/", json_body={"name": f"Analysts {tag}", "description": "Reads"}
    )
    page.goto(app_url(server, f"/datasets/{dataset['id']}/sharing"))
    expect(page.get_by_text("Not shared with anyone yet.")).to_be_visible()
    check_axe(page)

    page.get_by_label("Private").check()
    page.get_by_role("button", name="Save visibility").click()
    expect(page.get_by_text("Now: Private")).to_be_visible()
    assert owner.client.dataset_get(dataset["id"])["visibility"] == "private"
    assert sees(grantee, dataset) is False

    picker = page.get_by_role("combobox", name="Person or group")
    picker.fill(f"zelda quux {tag}")
    option = page.get_by_role("option", name=f"Zelda Quux {tag} ({grantee.email})")
    expect(option).to_be_visible()
    check_axe(page)
    picker.press("ArrowDown")
    picker.press("Enter")
    expect(picker).to_have_value(f"Zelda Quux {tag} ({grantee.email})")
    page.get_by_label("Permission").select_option("read")
    page.get_by_role("button", name="Add", exact=True).click()
    row = page.get_by_role("row", name=re.compile(f"Zelda Quux {tag}"))
    expect(row).to_contain_text(grantee.email)
    expect(row).to_contain_text("Read")
    expect(picker).to_have_value("")

    picker.fill(f"Analysts {tag}")
    page.get_by_role("option", name=f"Group: Analysts {tag}").click()
    page.get_by_label("Permission").select_option("write")
    page.get_by_role("button", name="Add", exact=True).click()
    group_row = page.get_by_role("row", name=re.compile(f"Group: Analysts {tag}"))
    expect(group_row).to_contain_text("Read and write")
    page.evaluate("window.scrollTo(0, 0)")
    shoot(page, "dataset-sharing")
    principals = {
        g["principal"] for g in owner.client.grants_list("dataset", dataset["id"])["items"]
    }
    assert principals == {f"user:{grantee.id}", f"group:{group['id']}"}

    # The grantee's own browser now sees the private dataset.
    context = browser.new_context(bypass_csp=True)
    theirs = context.new_page()
    sign_in(theirs, server, grantee.email, grantee.password, f"/datasets/{dataset['id']}/versions")
    versions = theirs.get_by_role("table", name=re.compile("Versions of"))
    expect(versions.get_by_role("rowheader", name=re.compile(r"^1\b"))).to_be_visible()
    assert sees(grantee, dataset)

    page.get_by_role("button", name=f"Remove access of Zelda Quux {tag}").click()
    dialog = page.get_by_role("dialog", name=f"Remove the access of Zelda Quux {tag}?")
    expect(dialog).to_be_visible()
    check_axe(page)
    dialog.get_by_role("button", name="Remove access").click()
    expect(dialog).to_be_hidden()
    expect(row).to_have_count(0)
    expect(group_row).to_be_visible()
    assert sees(grantee, dataset) is False
    theirs.reload()
    expect(theirs.get_by_text("Dataset not found").first).to_be_visible()
    context.close()


def test_sharing_at_390_px_and_not_offered_to_readers(signed_in, server, make_user):
    owner = make_user("editor")
    dataset = owner.client.dataset_create(f"sharing-narrow-{secrets.token_hex(3)}")
    page, _ = signed_in(
        "viewer", path=f"/datasets/{dataset['id']}/sharing", viewport={"width": 390, "height": 844}
    )
    expect(page.get_by_text("Only the owner of this dataset and admins")).to_be_visible()
    expect(page.get_by_role("combobox", name="Person or group")).to_have_count(0)
    page.close()
    page, _ = signed_in(
        "admin", path=f"/datasets/{dataset['id']}/sharing", viewport={"width": 390, "height": 844}
    )
    expect(page.get_by_role("combobox", name="Person or group")).to_be_visible()
    no_horizontal_scroll(page)
    check_axe(page)
