from tests.e2e.conftest import gunicorn_env, gunicorn_server  # noqa: F401  (shared fixtures)
