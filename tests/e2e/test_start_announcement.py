"""What a person who starts the service reads last: the first admin's password (once)
and the address to open, below gunicorn's start-up lines."""

import re
import time

from tests.e2e.conftest import start_gunicorn, stop_gunicorn


def _told(server, timeout=10):
    deadline = time.monotonic() + timeout
    while "datahub: ready; open" not in server.log():
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.05)
    return server.log().splitlines()


def test_the_password_and_the_address_come_after_every_start_up_line(database_url, tmp_path, app):
    server = start_gunicorn(database_url, tmp_path, workers=2)
    try:
        lines = _told(server)
        port = server.url.rsplit(":", 1)[1]
        told = [i for i, line in enumerate(lines) if line.startswith("datahub: ")]
        assert [lines[i] for i in told][-1] == f"datahub: ready; open http://localhost:{port}/app/"
        # Its own look at /readyz is logged above it.
        assert "/readyz" in lines[told[0] - 1]
        assert re.match(r"datahub: created the first admin \S+ with password \S+$", lines[told[0]])
        booted = [i for i, line in enumerate(lines) if "Booting worker" in line]
        assert len(booted) == 2 and max(booted) < told[0]
        assert min(i for i, line in enumerate(lines) if "Listening at" in line) < told[0]
    finally:
        stop_gunicorn(server)


def test_a_later_start_tells_only_the_address(database_url, tmp_path, app):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first = start_gunicorn(database_url, tmp_path / "one", workers=1)
    _told(first)
    stop_gunicorn(first)
    again = start_gunicorn(database_url, tmp_path / "two", workers=1)
    try:
        lines = _told(again)
        assert [line for line in lines if line.startswith("datahub: ")] == [
            f"datahub: ready; open http://localhost:{again.url.rsplit(':', 1)[1]}/app/"
        ]
    finally:
        stop_gunicorn(again)
