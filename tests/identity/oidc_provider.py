"""A real OpenID Connect provider for the tests, in a process of its own: the PyPI package
``oidc-provider-mock`` (Authlib's server components), served by Werkzeug on 127.0.0.1.

Run as ``python -m tests.identity.oidc_provider PORT``. Its users are set with ``PUT
/users/<sub>`` (the claims, e.g. email, name, roles) and logged in by posting ``sub`` to
its authorization page. It enforces PKCE (S256), which the package does not. Test hooks:
``PUT /_test/pkce`` fails the next code exchange's PKCE check, and ``PUT /_test/id-token`` with
``{"tamper": ...}`` makes the next token response carry an ID token that a client must
refuse (``bad_signature``: signed with another key under the provider's key id;
``wrong_audience``, ``wrong_issuer``, ``expired``, ``wrong_nonce``: signed with the
provider's own key).
"""

import base64
import hashlib
import json
import os
import subprocess
import sys
import time
import urllib.parse

import urllib3

from tests import processes
from tests.workers import free_port

TAMPERING = ("bad_signature", "wrong_audience", "wrong_issuer", "expired", "wrong_nonce")


def build_app():
    import flask
    import oidc_provider_mock
    from joserfc import jwt
    from joserfc.jwk import RSAKey

    app = oidc_provider_mock.app(require_nonce=True)
    pending = {}
    challenges = {}  # authorization code -> the PKCE code_challenge it was issued for

    # PKCE (RFC 7636, S256) enforced here: oidc-provider-mock does not check it.
    @app.after_request
    def remember_challenge(response):
        if flask.request.path == "/oauth2/authorize" and response.status_code == 302:
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(response.location).query)
            if "code" in query:
                challenges[query["code"][0]] = (
                    flask.request.args.get("code_challenge"),
                    flask.request.args.get("code_challenge_method"),
                )
        return response

    @app.before_request
    def check_verifier():
        if flask.request.path != "/oauth2/token":
            return None
        challenge, method = challenges.pop(flask.request.form.get("code"), (None, None))
        verifier = flask.request.form.get("code_verifier") or ""
        digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
        expected = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
        if pending.pop("corrupt_pkce", False):
            expected = "not-the-challenge"
        if challenge is None or method != "S256" or expected != challenge:
            return {"error": "invalid_grant", "error_description": "PKCE verification failed"}, 400
        return None

    @app.put("/_test/pkce")
    def corrupt_next_pkce():
        pending["corrupt_pkce"] = True
        return "", 204

    @app.put("/_test/id-token")
    def tamper_next_id_token():
        tamper = (flask.request.get_json(force=True) or {}).get("tamper")
        if tamper not in TAMPERING:
            return {"error": f"tamper must be one of {TAMPERING}"}, 400
        pending["tamper"] = tamper
        return "", 204

    @app.after_request
    def tamper(response):
        if flask.request.path != "/oauth2/token" or response.status_code != 200:
            return response
        how = pending.pop("tamper", None)
        if how is None:
            return response
        body = response.get_json()
        own = flask.g.oidc_provider_mock_storage.jwk.as_dict(is_private=True)
        key = RSAKey.import_key(own)
        header = {"alg": "RS256", "kid": own.get("kid")}
        claims = jwt.decode(body["id_token"], key).claims
        now = int(time.time())
        if how == "bad_signature":
            key = RSAKey.generate_key(2048)
        elif how == "wrong_audience":
            claims["aud"] = "another-client"
        elif how == "wrong_issuer":
            claims["iss"] = "https://evil.example"
        elif how == "expired":
            claims["iat"], claims["exp"] = now - 7200, now - 3600
        elif how == "wrong_nonce":
            claims["nonce"] = "not-the-nonce-of-this-login"
        body["id_token"] = jwt.encode({k: v for k, v in header.items() if v}, claims, key)
        response.set_data(json.dumps(body))
        return response

    return app


class Provider:
    """The provider process: ``issuer``, users and logins, tampering."""

    def __init__(self, log_path):
        self.log_path = log_path
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.http = urllib3.PoolManager(timeout=10, retries=False)

    def start(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = {**os.environ, "PYTHONPATH": root, "AUTHLIB_INSECURE_TRANSPORT": "1"}
        with open(self.log_path, "wb") as log:
            self.process = processes.popen(
                [sys.executable, "-m", "tests.identity.oidc_provider", str(self.port)],
                cwd=root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if (
                    self.http.request(
                        "GET", self.issuer + "/.well-known/openid-configuration", timeout=1
                    ).status
                    == 200
                ):
                    return self
            except urllib3.exceptions.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            output = log.read()[-3000:]
        raise RuntimeError(
            f"the OIDC provider (oidc-provider-mock, the test extra) did not "
            f"start on {self.issuer}:\n{output}"
        )

    def stop(self):
        processes.stop(self.process)

    def set_user(self, sub, **claims):
        response = self.http.request(
            "PUT",
            f"{self.issuer}/users/{urllib.parse.quote(sub)}",
            body=json.dumps(claims),
            headers={"Content-Type": "application/json"},
        )
        assert response.status == 204, response.data

    def tamper_next_id_token(self, how):
        response = self.http.request(
            "PUT",
            f"{self.issuer}/_test/id-token",
            body=json.dumps({"tamper": how}),
            headers={"Content-Type": "application/json"},
        )
        assert response.status == 204, response.data

    def corrupt_next_pkce(self):
        """The next code exchange fails its PKCE check, as for a wrong verifier."""
        response = self.http.request("PUT", f"{self.issuer}/_test/pkce")
        assert response.status == 204, response.data

    def authorize(self, authorization_url, sub=None, deny=False):
        """Submit the authorization page as a person would: the ``Location`` it answers
        with (the client's callback, with ``code`` and ``state`` or ``error``)."""
        fields = {"action": "deny"} if deny else {"sub": sub}
        response = self.http.request(
            "POST", authorization_url, fields=fields, encode_multipart=False, redirect=False
        )
        assert response.status == 302, (response.status, response.data[:500])
        return response.headers["Location"]


if __name__ == "__main__":
    from werkzeug.serving import run_simple

    os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")
    run_simple("127.0.0.1", int(sys.argv[1]), build_app(), threaded=True)
