"""The framework ceiling: a bare Flask app that answers a JSON body of a given size.

Served by gunicorn with the same settings as datahub, it shows what Flask + gunicorn
can do on this machine at all, so datahub's numbers can be read as a ratio."""

import os

from flask import Flask, Response

BODY = os.environ.get("CEILING_BODY", '{"detail": "ok"}').encode()

app = Flask(__name__)


@app.get("/api/v1/auth/me")
def me():
    return Response(BODY, mimetype="application/json")
