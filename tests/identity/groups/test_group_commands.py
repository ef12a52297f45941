"""flask --app datahub groups ..."""

from datahub.app.extensions import db
from datahub.identity.group_models import Group


def invoke(runner, *args):
    return runner.invoke(args=["groups", *args])


def group_named(app, name):
    with app.app_context():
        group = db.session.scalar(db.select(Group).where(Group.name_key == name.lower()))
        return None if group is None else (group.name, group.source, group.member_ids)


def test_create_list_and_delete(app, runner):
    result = invoke(runner, "create", "Analysts", "--description", "The analysts")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Created group Analysts (local) id=")
    result = invoke(runner, "create", "Engineers", "--source", "ldap")
    assert result.exit_code == 0, result.output
    assert group_named(app, "engineers") == ("Engineers", "ldap", [])

    listed = invoke(runner, "list")
    assert listed.exit_code == 0
    lines = listed.output.splitlines()
    assert lines[0].split() == ["ID", "NAME", "SOURCE", "MEMBERS", "DESCRIPTION"]
    assert [line.split()[1:4] for line in lines[1:]] == [
        ["Analysts", "local", "0"],
        ["Engineers", "ldap", "0"],
    ]

    result = invoke(runner, "delete", "ANALYSTS")
    assert result.exit_code == 0, result.output
    assert result.output == "Deleted group Analysts\n"
    assert group_named(app, "analysts") is None


def test_errors_end_the_command_with_their_detail(runner):
    assert invoke(runner, "create", "Analysts").exit_code == 0
    taken = invoke(runner, "create", "analysts")
    assert (taken.exit_code, taken.output) == (1, "Error: Name already exists\n")
    blank = invoke(runner, "create", " ")
    assert blank.exit_code == 1 and blank.output.startswith("Error: name:")
    wrong = invoke(runner, "create", "Other", "--source", "github")
    assert wrong.exit_code == 2
    missing = invoke(runner, "delete", "Nobody's")
    assert (missing.exit_code, missing.output) == (1, "Error: Group not found\n")
    for command in ("add-member", "remove-member"):
        result = invoke(runner, command, "Analysts", "nobody@example.com")
        assert (result.exit_code, result.output) == (1, "Error: User not found\n")


def test_members_are_added_and_removed(app, runner, make_user):
    user = make_user(email="ann@example.com")
    assert invoke(runner, "create", "Analysts").exit_code == 0
    for _ in range(2):  # idempotent
        result = invoke(runner, "add-member", "analysts", "Ann@Example.com")
        assert result.exit_code == 0, result.output
        assert result.output == "ann@example.com is a member of Analysts\n"
    assert group_named(app, "Analysts")[2] == [user.id]
    assert invoke(runner, "list").output.splitlines()[1].split()[1:4] == ["Analysts", "local", "1"]
    for _ in range(2):
        result = invoke(runner, "remove-member", "Analysts", "ann@example.com")
        assert result.exit_code == 0, result.output
        assert result.output == "ann@example.com is not a member of Analysts\n"
    assert group_named(app, "Analysts")[2] == []


def test_members_of_a_provider_group_are_kept_by_its_source(app, runner, make_user):
    make_user(email="ann@example.com")
    assert invoke(runner, "create", "Directory", "--source", "ldap").exit_code == 0
    result = invoke(runner, "add-member", "Directory", "ann@example.com")
    assert (result.exit_code, result.output) == (1, "Error: Group members are kept by its source\n")
    assert group_named(app, "Directory")[2] == []
