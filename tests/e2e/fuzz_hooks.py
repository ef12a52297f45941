"""schemathesis hooks (loaded through SCHEMATHESIS_HOOKS): a fresh login for every generated
request (bearer token and refresh cookie), so a fuzzed logout cannot end the session the
next request needs. The cookie is set on the case itself: Python's cookie jar would not
send a Secure cookie over plain http."""
import json
import os
import urllib.request

import schemathesis


@schemathesis.auth(refresh_interval=None)
class FreshBearer:
    def get(self, case, context):
        body = json.dumps({"email": os.environ["FUZZ_EMAIL"],
                           "password": os.environ["FUZZ_PASSWORD"]}).encode()
        request = urllib.request.Request(
            os.environ["FUZZ_BASE_URL"] + "/api/v1/auth/login", data=body,
            headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            name, _, rest = response.headers["Set-Cookie"].partition("=")
            return json.load(response)["access_token"], name, rest.split(";", 1)[0]

    def set(self, case, data, context):
        token, cookie_name, cookie_value = data
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {token}"
        case.cookies = case.cookies or {}
        case.cookies[cookie_name] = cookie_value
