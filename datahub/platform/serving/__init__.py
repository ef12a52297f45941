"""How the service is served: the gunicorn worker (``gunicorn_worker``) and what the app
needs to know about the server under it. Everything that touches gunicorn's internals
lives in :mod:`datahub.platform.serving.gunicorn_worker`, so an upgrade shows up in one place."""
