"""The curl walk-through of the documentation against a real gunicorn with two workers, using the
real curl binary and its cookie jar (which, unlike Python's, sends a Secure cookie to
127.0.0.1 over plain http, as browsers do for localhost)."""

import json
import shutil
import subprocess
import time

import pytest

pytestmark = pytest.mark.e2e


def curl(*args):
    """Run curl; returns (status, headers text, body text)."""
    assert shutil.which("curl"), "the real curl binary is needed for this test"
    result = subprocess.run(
        ["curl", "-sS", "-D", "-", "--max-time", "20", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    head, _, body = result.stdout.partition("\n\n")  # text mode folded \r\n
    status = int(head.split()[1])
    return status, head, body


def test_curl_cookie_jar_flow(gunicorn_server, tmp_path):
    url = gunicorn_server.url + "/api/v1/auth"
    jar = str(tmp_path / "jar.txt")
    password = gunicorn_server.admin_password()  # printed once by the first start

    status, head, body = curl(
        "-c",
        jar,
        "-H",
        "Content-Type: application/json",
        "-d",
        json.dumps({"email": "admin@example.com", "password": password}),
        f"{url}/login",
    )
    assert status == 200, body
    token = json.loads(body)["access_token"]
    assert json.loads(body)["token_type"] == "bearer"
    set_cookie = [line for line in head.splitlines() if line.lower().startswith("set-cookie:")]
    assert len(set_cookie) == 1
    for attribute in (
        "__Secure-refresh_token=",
        "HttpOnly",
        "Secure",
        "Path=/api/v1/auth",
        "SameSite=Strict",
        "Max-Age=604800",
    ):
        assert attribute in set_cookie[0]
    assert "cache-control: no-store" in head.lower()

    status, head, body = curl("-H", f"Authorization: Bearer {token}", f"{url}/me")
    assert status == 200
    me = json.loads(body)
    assert me["email"] == "admin@example.com" and me["roles"] == ["admin"]
    assert "x-request-id:" in head.lower()

    # Several refreshes, spread over both workers.
    for _ in range(4):
        status, _, body = curl("-X", "POST", "-b", jar, "-c", jar, f"{url}/refresh")
        assert status == 200, body
    fresh_token = json.loads(body)["access_token"]
    assert curl("-H", f"Authorization: Bearer {fresh_token}", f"{url}/me")[0] == 200

    copied_jar = (tmp_path / "jar.txt").read_text()
    status, head, body = curl(
        "-X",
        "POST",
        "-b",
        jar,
        "-c",
        jar,
        "-H",
        f"Authorization: Bearer {fresh_token}",
        f"{url}/logout",
    )
    assert status == 200
    assert json.loads(body) == {"message": "Successfully logged out"}
    assert "Max-Age=0" in head

    # The jar no longer holds the cookie; a copy of the old one is refused.
    status, _, body = curl("-X", "POST", "-b", jar, f"{url}/refresh")
    assert (status, json.loads(body)) == (401, {"detail": "Not authenticated"})
    (tmp_path / "copy.txt").write_text(copied_jar)
    status, _, body = curl("-X", "POST", "-b", str(tmp_path / "copy.txt"), f"{url}/refresh")
    assert (status, json.loads(body)) == (401, {"detail": "Token has been revoked"})
    status, _, body = curl("-H", f"Authorization: Bearer {fresh_token}", f"{url}/me")
    assert (status, json.loads(body)) == (401, {"detail": "Token has been revoked"})


def test_errors_through_gunicorn_are_json(gunicorn_server):
    status, head, body = curl(gunicorn_server.url + "/api/v1/nope")
    assert (status, json.loads(body)) == (404, {"detail": "Not Found"})
    status, head, body = curl(
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-d",
        "{oops",
        gunicorn_server.url + "/api/v1/auth/login",
    )
    assert (status, json.loads(body)) == (400, {"detail": "Request body is not valid JSON"})


def test_access_log_has_one_line_per_request_with_the_request_id(gunicorn_server):
    curl("-H", "X-Request-ID: trace-me-42", gunicorn_server.url + "/healthz")
    # The worker writes its access line after the response is sent: wait for it.
    deadline = time.monotonic() + 10
    while True:
        lines = [line for line in gunicorn_server.log().splitlines() if "trace-me-42" in line]
        if lines or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    time.sleep(0.2)  # a duplicate line would have arrived by now
    lines = [line for line in gunicorn_server.log().splitlines() if "trace-me-42" in line]
    assert len(lines) == 1
    assert '"GET /healthz HTTP/1.1" 200' in lines[0]
