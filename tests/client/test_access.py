"""Visibility and grants through datahub_client and the ``datahub`` command against a real
gunicorn: private rows hidden from others, a grant's read or write, revoking, and who may
manage them; ``share --user EMAIL`` looked up, ``--group`` unknown."""

import json

import pytest

from datahub_client import (
    Client,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ValidationError,
    group_principal,
    user_principal,
)

pytestmark = pytest.mark.e2e


def new_user(admin, email, role):
    """A user (made by the admin) and a client logged in as that user."""
    password = f"{role} password {email}"
    user = admin._json(
        "POST",
        "/api/v1/users/",
        json_body={"email": email, "password": password, "roles": [role]},
    )
    client = Client(admin.base_url)
    client.login(email, password)
    return user, client


def make_pipeline(client, dataset_id, name, **extra):
    return client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": name,
            "source_dataset_id": dataset_id,
            "output_dataset_name": name,
            "steps": [],
            **extra,
        },
    )


def make_group(admin, name, member_ids):
    """A local group with these members, made by the admin through the groups API."""
    group = admin._json("POST", "/api/v1/groups/", json_body={"name": name})
    for user_id in member_ids:
        admin._json("PUT", f"/api/v1/groups/{group['id']}/members/{user_id}")
    return group["id"]


def test_visibility_and_grants_of_a_dataset(client, unique):
    _, ann = new_user(client, "ann@example.com", "editor")
    bob, bob_client = new_user(client, "bob@example.com", "editor")
    name = unique("Secret")
    dataset = ann.dataset_create(name, visibility="private")
    assert dataset["visibility"] == "private"
    with pytest.raises(NotFoundError):
        bob_client.dataset_get(dataset["id"])
    assert ann.datasets_list(q=name)["total"] == 1
    assert bob_client.datasets_list(q=name)["total"] == 0  # not listed either

    grant = ann.grant_add("dataset", dataset["id"], user_principal(bob["id"]), "read")
    assert (grant["principal"], grant["permission"]) == (f"user:{bob['id']}", "read")
    assert bob_client.dataset_get(dataset["id"])["name"] == name
    with pytest.raises(PermissionDeniedError):
        bob_client.dataset_update(dataset["id"], name="Mine")
    with pytest.raises(PermissionDeniedError):  # a grantee does not manage the grants
        bob_client.grants_list("dataset", dataset["id"])
    with pytest.raises(ConflictError):
        ann.grant_add("dataset", dataset["id"], user_principal(bob["id"]), "write")
    page = ann.grants_list("dataset", dataset["id"])
    assert [(g["id"], g["permission"]) for g in page["items"]] == [(grant["id"], "read")]
    assert page["total"] == 1 and list(ann.grants_iter("dataset", dataset["id"])) == page["items"]
    # An admin manages every row's grants.
    assert client.grants_list("dataset", dataset["id"])["total"] == 1

    ann.grant_remove("dataset", dataset["id"], grant["id"])
    with pytest.raises(NotFoundError):
        bob_client.dataset_get(dataset["id"])
    with pytest.raises(NotFoundError):
        ann.grant_remove("dataset", dataset["id"], grant["id"])

    assert ann.dataset_set_visibility(dataset["id"], "internal")["visibility"] == "internal"
    assert bob_client.dataset_get(dataset["id"])["visibility"] == "internal"
    with pytest.raises(PermissionDeniedError):  # reading is not managing
        bob_client.dataset_set_visibility(dataset["id"], "private")
    assert client.dataset_set_visibility(dataset["id"], "private")["visibility"] == "private"
    with pytest.raises(NotFoundError):
        bob_client.dataset_get(dataset["id"])

    write = ann.grant_add("dataset", dataset["id"], user_principal(bob["id"]), "write")
    assert write["permission"] == "write"
    shared = unique("Shared")
    assert bob_client.dataset_update(dataset["id"], name=shared)["name"] == shared
    with pytest.raises(ValidationError):  # no such group
        ann.grant_add("dataset", dataset["id"], group_principal(999999), "read")
    with pytest.raises(ValueError):
        ann.grants_list("table", dataset["id"])


def test_visibility_and_grants_of_collections_and_pipelines(client, unique):
    _, ann = new_user(client, "carol@example.com", "editor")
    bob, bob_client = new_user(client, "dave@example.com", "viewer")
    dataset = ann.dataset_create(unique("Inputs"), visibility="internal")
    collection = ann.collection_create(unique("Private set"), visibility="private")
    assert collection["visibility"] == "private"
    with pytest.raises(NotFoundError):
        bob_client.collection_get(collection["id"])
    grant = ann.grant_add("collection", collection["id"], user_principal(bob["id"]))
    assert grant["permission"] == "read"
    assert bob_client.collection_get(collection["id"])["name"] == unique("Private set")
    ann.grant_remove("collection", collection["id"], grant["id"])
    assert ann.grants_list("collection", collection["id"])["total"] == 0
    changed = ann.collection_set_visibility(collection["id"], "internal")
    assert changed["visibility"] == "internal"
    assert bob_client.collection_get(collection["id"])["id"] == collection["id"]

    name = unique("copy")
    pipeline = make_pipeline(ann, dataset["id"], name, visibility="private")
    assert ann.pipelines_list(q=name)["total"] == 1
    assert bob_client.pipelines_list(q=name)["total"] == 0
    grant = ann.grant_add("pipeline", pipeline["id"], user_principal(bob["id"]), "read")
    assert [p["id"] for p in bob_client.pipelines_list(q=name)["items"]] == [pipeline["id"]]
    ann.grant_remove("pipeline", pipeline["id"], grant["id"])
    assert bob_client.pipelines_list(q=name)["total"] == 0
    assert ann.pipeline_set_visibility(pipeline["id"], "internal")["visibility"] == "internal"
    assert bob_client.pipelines_list(q=name)["total"] == 1


def test_the_command_shares_and_sets_visibility(client, datahub, unique):
    ann, _ = new_user(client, "erin@example.com", "viewer")
    result = datahub(
        "--json", "datasets", "create", unique("Shared rain"), "--visibility", "private"
    )
    assert result.exit_code == 0, result.stderr
    dataset = json.loads(result.stdout)
    assert dataset["visibility"] == "private"
    dataset_id = str(dataset["id"])

    result = datahub("datasets", "visibility", dataset_id, "internal")
    assert (result.exit_code, result.stdout) == (0, f"Dataset {dataset_id} is internal\n")
    assert client.dataset_get(dataset_id)["visibility"] == "internal"
    assert datahub("datasets", "visibility", dataset_id, "public").exit_code == 2

    # An admin looks the user up by email.
    result = datahub("--json", "datasets", "share", dataset_id, "--user", "erin@example.com")
    assert result.exit_code == 0, result.stderr
    grant = json.loads(result.stdout)
    assert (grant["principal"], grant["permission"]) == (f"user:{ann['id']}", "read")
    result = datahub("datasets", "grants", dataset_id)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "PRINCIPAL", "PERMISSION", "CREATED"]
    assert lines[1].split()[:3] == [str(grant["id"]), f"user:{ann['id']}", "read"]
    result = datahub("datasets", "share", dataset_id, "--user", ann["id"], "--permission", "write")
    assert result.exit_code == 1 and result.stderr.startswith("Error: Grant already exists")

    result = datahub("datasets", "unshare", dataset_id, str(grant["id"]))
    assert result.stdout == f"Revoked grant {grant['id']} of dataset {dataset_id}\n"
    assert json.loads(datahub("--json", "datasets", "grants", dataset_id).stdout)["total"] == 0
    result = datahub("datasets", "share", dataset_id, "--user", ann["id"], "--permission", "write")
    assert result.exit_code == 0, result.stderr
    assert client.grants_list("dataset", dataset_id)["items"][0]["permission"] == "write"

    result = datahub("datasets", "share", dataset_id, "--user", "nobody@example.com")
    assert (result.exit_code, result.stderr) == (1, "Error: principal: No such user or group\n")
    result = datahub("datasets", "share", dataset_id, "--group", "999999")
    assert result.exit_code == 1 and result.stderr.startswith("Error: principal: ")
    result = datahub("datasets", "share", dataset_id)
    assert result.exit_code == 2 and "Give one of --user or --group" in result.stderr

    result = datahub("--json", "collections", "create", unique("Set"), "--visibility", "private")
    collection_id = str(json.loads(result.stdout)["id"])
    result = datahub("collections", "share", collection_id, "--user", "me")
    assert result.exit_code == 0, result.stderr
    result = datahub("--json", "collections", "visibility", collection_id, "internal")
    assert json.loads(result.stdout)["visibility"] == "internal"
    pipeline = make_pipeline(client, int(dataset_id), unique("copy"))
    result = datahub("pipelines", "visibility", str(pipeline["id"]), "private")
    assert result.stdout == f"Pipeline {pipeline['id']} is private\n"
    result = datahub("pipelines", "grants", "999999")
    assert (result.exit_code, result.stderr) == (1, "Error: Pipeline not found\n")


def test_an_editor_shares_by_email(client, server, tmp_path, unique):
    from click.testing import CliRunner

    from datahub_client.cli import main

    new_user(client, "fred@example.com", "editor")
    gina, _ = new_user(client, "gina@example.com", "viewer")
    env = {
        "DATAHUB_URL": server.url,
        "DATAHUB_SESSION_FILE": str(tmp_path / "fred.json"),
        "DATAHUB_EMAIL": "fred@example.com",
        "DATAHUB_PASSWORD": "editor password fred@example.com",
    }
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    assert run("login").exit_code == 0
    dataset_id = str(json.loads(run("--json", "datasets", "create", unique("Fred's")).stdout)["id"])
    result = run("--json", "datasets", "share", dataset_id, "--user", "Gina@example.com")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["principal"] == f"user:{gina['id']}"
    result = run("datasets", "share", dataset_id, "--user", "nobody-here@example.com")
    assert (result.exit_code, result.stderr) == (1, "Error: principal: No such user or group\n")


def test_a_group_grant_by_id(client, datahub, unique):
    hana, hana_client = new_user(client, "hana@example.com", "viewer")
    group_id = make_group(client, unique("Analysts"), [hana["id"]])
    name = unique("For analysts")
    dataset = client.dataset_create(name, visibility="private")
    with pytest.raises(NotFoundError):
        hana_client.dataset_get(dataset["id"])
    result = datahub("--json", "datasets", "share", str(dataset["id"]), "--group", str(group_id))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["principal"] == f"group:{group_id}"
    assert hana_client.dataset_get(dataset["id"])["name"] == name


def test_groups_by_name(client, datahub, unique):
    """Needs the groups API (GET /api/v1/groups/)."""
    ivan, ivan_client = new_user(client, "ivan@example.com", "viewer")
    others = list(client.groups_iter())  # the groups of the module's other tests
    name = unique("Field team")
    group_id = make_group(client, name, [ivan["id"]])
    groups = list(client.groups_iter())
    assert [(g["id"], g["name"], g["member_ids"]) for g in groups if g["id"] == group_id] == [
        (group_id, name, [ivan["id"]])
    ]
    assert [g for g in groups if g["id"] != group_id] == others
    assert ivan_client.groups_list()["total"] == len(others) + 1  # any user lists them
    result = datahub("groups", "list")
    assert result.exit_code == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert len(rows) == len(others) + 1
    assert [row[:4] for row in rows if row[0] == str(group_id)] == [[str(group_id), *name.split()]]

    collection = client.collection_create(unique("Field notes"), visibility="private")
    result = datahub("collections", "share", str(collection["id"]), "--group", name)
    assert result.exit_code == 0, result.stderr
    assert ivan_client.collection_get(collection["id"])["name"] == unique("Field notes")
    result = datahub("collections", "share", str(collection["id"]), "--group", "Nobody")
    assert (result.exit_code, result.stderr) == (1, "Error: No group Nobody\n")


def test_any_user_finds_others_by_name_and_the_command_lists_them(client, datahub, unique):
    name = unique("Katherine Johnson")
    email = f"{name.split()[-1].lower()}@example.com"
    kate = client._json(
        "POST",
        "/api/v1/users/",
        json_body={"email": email, "password": "a long password", "name": name},
    )
    _, lena_client = new_user(client, "lena@example.com", "viewer")
    page = lena_client.users_find(name.upper())
    assert page["items"] == [{"id": kate["id"], "name": name, "email": email}]
    assert lena_client.users_find(ids=[kate["id"]])["items"] == page["items"]
    with pytest.raises(ValidationError):
        lena_client.users_find(name, limit=21)
    result = datahub("users", "find", name)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split() == [kate["id"], *name.split(), email]
    result = datahub("--json", "users", "find", name)
    assert json.loads(result.stdout)["items"] == page["items"]
