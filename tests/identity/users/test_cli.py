"""flask --app datahub users ... (DESIGN.md "Users and roles")."""

import pytest
from alembic.script import ScriptDirectory

from datahub.app.extensions import db
from datahub.identity.models import User
from tests.conftest import PASSWORD, login


def invoke(runner, *args, env=None, input=None):
    return runner.invoke(args=["users", *args], env=env, input=input)


def get_user(app, email):
    with app.app_context():
        return db.session.scalar(db.select(User).where(User.email == email))


def test_create_with_roles_and_login(app, runner, client):
    result = invoke(
        runner,
        "create",
        "--email",
        "Ops@Example.com",
        "--password",
        PASSWORD,
        "--name",
        "Ops",
        "--role",
        "editor",
        "--role",
        "admin",
    )
    assert result.exit_code == 0, result.output
    user = get_user(app, "ops@example.com")
    assert user.roles == ["editor", "admin"] and user.name == "Ops" and user.provider == "local"
    assert user.password_hash.startswith("$2b$04$")
    assert login(client, "ops@example.com").status_code == 200


# What a user of the client CLI (``datahub login``) may have exported for themselves.
CLIENT_PASSWORD = "the client's own password"
UNSET = {"DATAHUB_PASSWORD": None}
NOT_SET = "Error: DATAHUB_PASSWORD is not set or empty (--password-from-env reads it)"


def test_create_defaults_to_viewer_and_reads_the_password_from_env_when_asked(app, runner, client):
    result = invoke(
        runner,
        "create",
        "--email",
        "v@example.com",
        "--password-from-env",
        env={"DATAHUB_PASSWORD": PASSWORD},
    )
    assert result.exit_code == 0, result.output
    assert get_user(app, "v@example.com").roles == ["viewer"]
    assert login(client, "v@example.com").status_code == 200


def test_create_prompts_for_the_password(app, runner, client):
    result = invoke(
        runner, "create", "--email", "p@example.com", input=f"{PASSWORD}\n{PASSWORD}\n", env=UNSET
    )
    assert result.exit_code == 0, result.output
    assert PASSWORD not in result.output
    assert login(client, "p@example.com").status_code == 200


def test_an_exported_password_is_not_used_without_the_flag(app, runner, client, make_user):
    """DATAHUB_PASSWORD exported for the client CLI is no one's password here: without
    --password or --password-from-env the commands prompt, and the answer is the password."""
    env = {"DATAHUB_PASSWORD": CLIENT_PASSWORD}
    result = invoke(
        runner, "create", "--email", "n@example.com", env=env, input=f"{PASSWORD}\n{PASSWORD}\n"
    )
    assert result.exit_code == 0, result.output
    assert "Password: " in result.output and "Repeat for confirmation: " in result.output
    assert PASSWORD not in result.output and CLIENT_PASSWORD not in result.output
    assert login(client, "n@example.com").status_code == 200
    assert login(client, "n@example.com", CLIENT_PASSWORD).status_code == 401

    make_user()
    result = invoke(
        runner, "set-password", "user@example.com", env=env, input="brand new pw\nbrand new pw\n"
    )
    assert result.exit_code == 0, result.output
    assert "Password: " in result.output
    assert login(client, password="brand new pw").status_code == 200
    assert login(client, password=CLIENT_PASSWORD).status_code == 401


def test_without_an_answer_to_the_prompt_nothing_is_created(app, runner):
    result = invoke(
        runner,
        "create",
        "--email",
        "n@example.com",
        env={"DATAHUB_PASSWORD": CLIENT_PASSWORD},
        input="",
    )
    assert result.exit_code == 1
    assert get_user(app, "n@example.com") is None


@pytest.mark.parametrize("env", [UNSET, {"DATAHUB_PASSWORD": ""}], ids=["unset", "empty"])
def test_password_from_env_without_the_variable_is_an_error(app, runner, client, make_user, env):
    result = invoke(
        runner,
        "create",
        "--email",
        "n@example.com",
        "--password-from-env",
        env=env,
        input=f"{PASSWORD}\n{PASSWORD}\n",
    )
    assert result.exit_code == 1
    assert result.output == NOT_SET + "\n"  # one line, no prompt
    assert get_user(app, "n@example.com") is None

    make_user()
    result = invoke(runner, "set-password", "user@example.com", "--password-from-env", env=env)
    assert (result.exit_code, result.output) == (1, NOT_SET + "\n")
    assert login(client).status_code == 200  # the password is unchanged


def test_password_from_env_goes_to_stderr_when_unset(app):
    from click.testing import CliRunner
    from flask.cli import ScriptInfo

    from datahub.identity.users.commands import users_cli

    result = CliRunner().invoke(
        users_cli,
        ["create", "--email", "n@example.com", "--password-from-env"],
        env=UNSET,
        obj=ScriptInfo(create_app=lambda: app),
    )
    assert result.exit_code == 1
    assert (result.stdout, result.stderr) == ("", NOT_SET + "\n")


def test_password_and_password_from_env_exclude_each_other(app, runner):
    result = invoke(
        runner,
        "create",
        "--email",
        "n@example.com",
        "--password",
        PASSWORD,
        "--password-from-env",
        env={"DATAHUB_PASSWORD": PASSWORD},
    )
    assert result.exit_code == 2
    assert "--password and --password-from-env exclude each other" in result.output
    assert get_user(app, "n@example.com") is None


@pytest.mark.parametrize(
    "args, exit_code, message",
    [
        (["--email", "dup@example.com", "--password", PASSWORD], 1, "Email already exists"),
        (["--email", "DUP@example.com", "--password", PASSWORD], 1, "Email already exists"),
        (
            ["--email", "x@example.com", "--password", "short"],
            1,
            "password: ensure this value has at least 8 bytes",
        ),
        (
            ["--email", "x@example.com", "--password", "x" * 73],
            1,
            "password: ensure this value has at most 72 bytes",
        ),
        (
            ["--email", "not-an-email", "--password", PASSWORD],
            1,
            "email: value is not a valid email address",
        ),
        (
            ["--email", "x@example.com", "--password", PASSWORD, "--role", "god"],
            2,
            "'god' is not one of",
        ),
    ],
    ids=[
        "duplicate",
        "duplicate-case",
        "short-password",
        "long-password",
        "bad-email",
        "unknown-role",
    ],
)
def test_create_refuses_bad_input_with_a_message_and_nonzero_exit(
    app, runner, make_user, args, exit_code, message
):
    make_user(email="dup@example.com")
    result = invoke(runner, "create", *args)
    assert result.exit_code == exit_code
    assert message in result.output  # click's runner mixes stderr into output
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(User)) == 1


def test_errors_go_to_stderr(app, make_user):
    make_user(email="dup@example.com")
    from click.testing import CliRunner
    from flask.cli import ScriptInfo

    from datahub.identity.users.commands import users_cli

    runner = CliRunner()
    result = runner.invoke(
        users_cli,
        ["create", "--email", "dup@example.com", "--password", PASSWORD],
        obj=ScriptInfo(create_app=lambda: app),
    )
    assert result.exit_code == 1
    assert "Error: Email already exists" in result.stderr
    assert result.stdout == ""


def test_list(runner, make_user):
    make_user(email="a@example.com", roles=["admin"])
    make_user(email="b@example.com", roles=["viewer", "editor"])
    result = invoke(runner, "list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["EMAIL", "NAME", "ROLES"]
    assert any(line.startswith("a@example.com") and "admin" in line for line in lines)
    assert any(line.startswith("b@example.com") and "viewer,editor" in line for line in lines)


def test_set_roles(app, runner, make_user):
    make_user(email="a@example.com", roles=["admin"])
    make_user(email="b@example.com")
    result = invoke(runner, "set-roles", "B@example.com", "--role", "editor", "--role", "viewer")
    assert result.exit_code == 0, result.output
    assert get_user(app, "b@example.com").roles == ["editor", "viewer"]


def test_the_last_active_admin_cannot_be_demoted_or_deactivated(app, runner, make_user):
    make_user(email="a@example.com", roles=["admin"])
    result = invoke(runner, "set-roles", "a@example.com", "--role", "viewer")
    assert result.exit_code == 1
    assert "last active admin" in result.output
    assert invoke(runner, "deactivate", "a@example.com").exit_code == 1
    assert get_user(app, "a@example.com").roles == ["admin"]
    make_user(email="b@example.com", roles=["admin"])
    assert invoke(runner, "set-roles", "a@example.com", "--role", "viewer").exit_code == 0


def test_unknown_email_is_an_error(runner):
    for args in (
        ["set-roles", "no@example.com", "--role", "viewer"],
        ["deactivate", "no@example.com"],
        ["activate", "no@example.com"],
        ["set-password", "no@example.com", "--password", PASSWORD],
    ):
        result = invoke(runner, *args)
        assert result.exit_code == 1
        assert "User not found" in result.output


def test_deactivate_ends_sessions_and_activate_restores_login(app, runner, client, make_user):
    make_user(email="a@example.com", roles=["admin"])
    make_user()
    login(client)
    assert invoke(runner, "deactivate", "user@example.com").exit_code == 0
    assert client.post("/api/v1/auth/refresh").status_code == 401
    assert login(client).status_code == 401
    assert invoke(runner, "activate", "user@example.com").exit_code == 0
    assert login(client).status_code == 200


def test_set_password_ends_sessions(app, runner, client, make_user):
    make_user()
    login(client)
    result = invoke(
        runner,
        "set-password",
        "user@example.com",
        "--password-from-env",
        env={"DATAHUB_PASSWORD": "brand new pw"},
    )
    assert result.exit_code == 0, result.output
    assert client.post("/api/v1/auth/refresh").get_json() == {"detail": "Token has been revoked"}
    assert login(client).status_code == 401
    assert login(client, password="brand new pw").status_code == 200
    assert invoke(runner, "set-password", "user@example.com", "--password", "short").exit_code == 1


def test_flask_migrate_upgrade_is_available(app, runner):
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        version = db.session.scalar(db.text("SELECT version_num FROM alembic_version"))
        config = app.extensions["migrate"].migrate.get_config()
        head = ScriptDirectory.from_config(config).get_current_head()
    assert version == head
