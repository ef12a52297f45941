from tests.e2e.conftest import (  # noqa: F401  (shared fixtures)
    gunicorn_env,
    gunicorn_server,
    gunicorn_workers,
    pipeline_worker,
)
