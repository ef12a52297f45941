"""Personal access tokens through datahub_client and the ``datahub`` command against a real
gunicorn: made with a login, listed without their secrets, used as the bearer (read scope:
GET only; a 401 is final, nothing is refreshed), revoked; ``datahub login --token`` from
stdin, ``DATAHUB_TOKEN`` before what the session file keeps."""

import json
import os
import stat

import pytest
from click.testing import CliRunner

from datahub_client import AuthenticationError, Client, PermissionDeniedError
from datahub_client.cli import main

pytestmark = pytest.mark.e2e


def test_a_token_is_made_used_listed_and_revoked(client, server, unique):
    # The admin's tokens that the module's other tests made on the shared server.
    others = {t["id"] for t in client.tokens_iter()}
    made = client.tokens_create("reports", scopes=["read"], expires_in_days=7)
    assert made["token"].startswith("dhp_") and made["scopes"] == ["read"]
    assert made["name"] == "reports" and made["last_used_at"] is None
    reader = Client(server.url, token=made["token"])
    assert reader.me()["email"] == "admin@example.com"
    assert reader.datasets_list() == client.datasets_list()  # what its owner sees
    with pytest.raises(PermissionDeniedError):  # read scope: GET only
        reader.dataset_create("Not with a read token")
    with pytest.raises(PermissionDeniedError):  # a token does not make tokens
        reader.tokens_create("another")

    writer = Client(server.url, token=client.tokens_create("ci", expires_in_days=1)["token"])
    name = unique("Made with a token")
    dataset = writer.dataset_create(name)
    assert client.dataset_get(dataset["id"])["name"] == name

    tokens = list(client.tokens_iter())
    assert all("token" not in t for t in tokens)
    listed = {t["name"]: t for t in tokens if t["id"] not in others}
    assert set(listed) == {"reports", "ci"}
    assert listed["reports"]["id"] == made["id"]
    assert listed["ci"]["scopes"] == ["read", "write"]
    assert client.tokens_list(limit=1)["total"] == len(others) + 2

    client.token_revoke(made["id"])
    with pytest.raises(AuthenticationError):  # final: no refresh is tried
        reader.me()
    assert reader.token == made["token"] and reader.refresh_cookie is None
    assert [t["name"] for t in client.tokens_iter() if t["id"] not in others] == ["ci"]
    with pytest.raises(AuthenticationError):
        Client(server.url, token="dhp_not-a-token").me()


@pytest.fixture
def run(server, tmp_path):
    """``datahub ARGS`` with no password in the environment; ``input`` goes to stdin."""
    runner = CliRunner()
    session = tmp_path / "config" / "session.json"

    def run(*args, input=None, env=None):
        base = {
            "DATAHUB_URL": server.url,
            "DATAHUB_SESSION_FILE": str(session),
            "DATAHUB_EMAIL": "admin@example.com",
            "DATAHUB_PASSWORD": None,
            "DATAHUB_TOKEN": None,
        }
        return runner.invoke(
            main, list(args), input=input, env={**base, **(env or {})}, catch_exceptions=False
        )

    run.session = session
    return run


def test_the_command_makes_uses_and_revokes_tokens(client, server, run, tmp_path, unique):
    # The admin's tokens that the module's other tests made on the shared server.
    others = [t["name"] for t in client.tokens_iter()]
    password = server.admin_password()
    assert run("login", input=password + "\n").exit_code == 0  # the password prompt
    result = run("tokens", "create", "nightly", "--read-only", "--days", "3")
    assert result.exit_code == 0, result.stderr
    secret = result.stdout.strip()
    assert secret.startswith("dhp_") and result.stdout == secret + "\n"
    assert "it will not be shown again" in result.stderr
    result = run("--json", "tokens", "create", "deploy")
    deploy = json.loads(result.stdout)
    assert deploy["scopes"] == ["read", "write"] and deploy["token"].startswith("dhp_")
    assert run("tokens", "create", "long", "--days", "366").exit_code == 2

    result = run("tokens", "list")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "SCOPES", "CREATED", "EXPIRES", "LAST", "USED"]
    assert sorted(line.split()[1] for line in lines[1:]) == sorted(["deploy", "nightly", *others])
    assert secret not in result.stdout and deploy["token"] not in result.stdout
    nightly = next(t for t in client.tokens_iter() if t["name"] == "nightly")

    # login --token reads stdin (never argv) and keeps the token as the session file.
    assert run("logout").exit_code == 0
    result = run("login", "--token", input=secret + "\n")
    assert result.exit_code == 0, result.stderr
    assert "as admin@example.com with a personal access token" in result.stdout
    assert json.loads(run.session.read_text()) == {"url": server.url, "token": secret}
    assert stat.S_IMODE(os.stat(run.session).st_mode) == 0o600
    assert run("whoami").stdout.splitlines()[1].startswith("admin@example.com")
    result = run("datasets", "create", unique("Read only"))
    assert result.exit_code == 1 and result.stderr.startswith("Error: ")
    result = run("tokens", "create", "from a token")
    assert result.exit_code == 1 and result.stderr.startswith("Error: ")
    assert run("login", "--token", input="not a token\n").exit_code == 2
    assert run("login", "--token", input="").exit_code == 2

    # DATAHUB_TOKEN comes before the file's token.
    result = run(
        "--json",
        "datasets",
        "create",
        unique("With the env token"),
        env={"DATAHUB_TOKEN": deploy["token"]},
    )
    assert result.exit_code == 0, result.stderr
    result = run("logout", env={"DATAHUB_TOKEN": deploy["token"]})
    assert result.exit_code == 1 and "DATAHUB_TOKEN is set" in result.stderr

    # Revoked from a password login (in a session file of its own).
    other = {"DATAHUB_SESSION_FILE": str(tmp_path / "other.json")}
    assert run("login", input=password + "\n", env=other).exit_code == 0
    result = run("tokens", "revoke", str(nightly["id"]), env=other)
    assert (result.exit_code, result.stdout) == (0, f"Revoked token {nightly['id']}\n")
    result = run("whoami")  # the file's token, revoked: refused, and nothing to refresh
    assert result.exit_code == 1 and result.stderr.startswith("Error: ")
    assert "datahub login" in result.stderr

    result = run("logout")
    assert result.exit_code == 0 and "Forgot the personal access token" in result.stdout
    assert not run.session.exists()
    # A password login replaces a kept token.
    assert run("login", "--token", input=deploy["token"] + "\n").exit_code == 0
    assert run("login", input=password + "\n").exit_code == 0
    assert "refresh_token" in json.loads(run.session.read_text())
