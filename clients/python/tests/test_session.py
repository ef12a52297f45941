"""The command's session file: the refresh cookie (or a personal access token) only, for
one URL, mode 0600."""

import json
import stat

from datahub_client.session import SessionFile, session_path


def test_the_path_is_the_variable_or_the_config_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("DATAHUB_SESSION_FILE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert session_path() == tmp_path / "xdg" / "datahub" / "session.json"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert session_path() == tmp_path / "home" / ".config" / "datahub" / "session.json"
    monkeypatch.setenv("DATAHUB_SESSION_FILE", str(tmp_path / "mine.json"))
    assert session_path() == tmp_path / "mine.json"


def test_saved_for_one_url_readable_by_its_owner_alone(tmp_path):
    path = tmp_path / "config" / "datahub" / "session.json"
    session = SessionFile(path)
    assert session.load("http://a") == (None, None)
    session.save("http://a", "__Secure-refresh_token", "secret")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {
        "url": "http://a",
        "cookie_name": "__Secure-refresh_token",
        "refresh_token": "secret",
    }
    assert session.load("http://a") == ("__Secure-refresh_token", "secret")
    assert session.load("http://b") == (None, None)  # another service: not logged in

    session.save("http://a", "refresh_token", "rotated")  # replaced atomically
    assert session.load("http://a") == ("refresh_token", "rotated")
    assert [p.name for p in path.parent.iterdir()] == ["session.json"]  # no temporary left

    session.save("http://a", "refresh_token", None)  # the service deleted the cookie
    assert not path.exists()
    session.clear()  # clearing twice is fine


def test_a_damaged_file_is_no_session(tmp_path):
    path = tmp_path / "session.json"
    for content in ("not json", "[1, 2]", ""):
        path.write_text(content)
        assert SessionFile(path).load("http://a") == (None, None)


def test_a_personal_access_token_is_kept_in_place_of_the_cookie(tmp_path):
    path = tmp_path / "session.json"
    session = SessionFile(path)
    session.save("http://a", "refresh_token", "cookie")
    session.save_token("http://a", "dhp_secret")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"url": "http://a", "token": "dhp_secret"}
    assert session.load_token("http://a") == "dhp_secret"
    assert session.load("http://a") == (None, None)  # no cookie any more
    assert session.load_token("http://b") is None
    session.save("http://a", "refresh_token", "cookie")  # a password login replaces it
    assert session.load_token("http://a") is None
