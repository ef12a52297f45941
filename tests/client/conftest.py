from tests.e2e.conftest import gunicorn_env, gunicorn_server, gunicorn_workers  # noqa: F401  (shared fixtures)
