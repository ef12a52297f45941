"""Fixtures for the client's own tests, which need no datahub service."""

import socket

import pytest


@pytest.fixture
def unused_port():
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
