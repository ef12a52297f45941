"""A WSGI stand-in for a datahub service that misbehaves on purpose, for the command's tests:
``/auth/refresh`` grants a token for any cookie, ``/auth/login`` answers without one,
``/auth/me`` answers HTML, and dataset 1's file ends after CUT of its announced bytes."""

import json

CONTENT = bytes(range(256)) * 40
CUT = 1000


def make_app():
    def app(environ, start_response):
        route = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        if route == ("POST", "/api/v1/auth/refresh"):
            start_response("200 OK", [("Content-Type", "application/json")])
            return [json.dumps({"access_token": "token"}).encode()]
        if route == ("POST", "/api/v1/auth/login"):
            start_response("200 OK", [("Content-Type", "application/json")])
            return [b'{"token_type": "bearer"}']
        if route == ("GET", "/api/v1/auth/me"):
            start_response("200 OK", [("Content-Type", "text/html")])
            return [b"<html>Welcome to nginx!</html>"]
        if route == ("GET", "/api/v1/datasets/1/file"):
            start_response(
                "200 OK",
                [
                    ("Content-Type", "application/octet-stream"),
                    ("Content-Length", str(len(CONTENT))),
                    ("Content-Disposition", "attachment; filename=cut.bin"),
                ],
            )
            return [CONTENT[:CUT]]  # then the connection closes: the download is cut short
        start_response("404 Not Found", [("Content-Type", "application/json")])
        return [b'{"detail": "Not found"}']

    return app
