"""gunicorn's quick shutdown (SIGQUIT) ends every process of the service at once."""

import signal
import subprocess

import pytest

from tests.e2e.conftest import start_gunicorn, stop_gunicorn

pytestmark = pytest.mark.e2e


def test_sigquit_right_after_a_request_ends_the_service_within_seconds(tmp_path):
    # A worker's graceful closes once ran on a thread pool whose threads Python joins at
    # exit: after a SIGQUIT the worker then waited forever (here 3 times in 5).
    for attempt in range(4):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        server = start_gunicorn(
            f"sqlite:///{folder}/db.sqlite",
            folder,
            1,
            {"DATAHUB_PIPELINE_EMBEDDED_WORKER": "false"},
        )
        try:
            # Straight after start_gunicorn's last request, while its connection closes.
            server.process.send_signal(signal.SIGQUIT)
            try:
                server.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pytest.fail(f"gunicorn still running 5 s after SIGQUIT:\n{server.log()}")
        finally:
            stop_gunicorn(server)  # every process of its group, had it hung
