"""The test workers' shares (tests/workers.py)."""

import itertools

from tests import workers


def test_no_worker_is_given_a_port_chromium_refuses(monkeypatch):
    """A server on 10080 could not be opened in the browser tests (net::ERR_UNSAFE_PORT)."""
    for worker in [f"gw{n}" for n in range(workers.MAX_WORKERS)] + ["main"]:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        workers._port_candidates.cache_clear()
        ports = set(itertools.islice(workers._port_candidates(), workers.PORTS_PER_WORKER))
        assert not ports & workers.BROWSER_UNSAFE_PORTS, worker
    workers._port_candidates.cache_clear()
