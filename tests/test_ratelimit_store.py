"""The SQLite rate-limit storage (datahub.platform.ratelimit_store) through the ``limits`` API, on
real files: exact counts for every strategy, shared by storages, threads and forked
processes on one file; clearing, resetting and pruning."""

import multiprocessing
import os
import sqlite3
import stat
import threading
import time

import pytest
from limits import parse
from limits.storage import storage_from_string
from limits.strategies import (
    FixedWindowRateLimiter,
    MovingWindowRateLimiter,
    SlidingWindowCounterRateLimiter,
)

from datahub.platform.ratelimit_store import SQLiteStorage, storage_uri

STRATEGIES = [MovingWindowRateLimiter, FixedWindowRateLimiter, SlidingWindowCounterRateLimiter]


@pytest.fixture
def path(tmp_path):
    return tmp_path / "counts" / "ratelimits.sqlite"


@pytest.fixture
def storage(path):
    return storage_from_string(storage_uri(path))


def rows(path):
    with sqlite3.connect(path) as db:
        return (
            db.execute("SELECT count(*) FROM moving_window").fetchone()[0]
            + db.execute("SELECT count(*) FROM counters").fetchone()[0]
        )


def test_the_uri_scheme_names_the_storage_and_its_file(storage, path):
    assert isinstance(storage, SQLiteStorage)
    assert storage.path == str(path)
    assert storage_uri("/var/lib/datahub/r.sqlite") == "sqlite:////var/lib/datahub/r.sqlite"
    assert storage.check()
    assert path.exists()  # the folder is created too
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the keys name accounts


def test_moving_window_allows_exactly_n_then_refuses_until_the_oldest_hit_leaves(storage):
    limiter = MovingWindowRateLimiter(storage)
    item = parse("5/minute")
    first = time.time()
    assert [limiter.hit(item, "ann") for _ in range(5)] == [True] * 5
    assert limiter.hit(item, "ann") is False
    assert limiter.test(item, "ann") is False
    reset, remaining = limiter.get_window_stats(item, "ann")
    assert remaining == 0
    # The window frees a slot when its oldest hit is a minute old: Retry-After's basis.
    assert first + 60 <= reset <= first + 60.5
    # Another key, and the same key under another limit, count on their own.
    assert limiter.hit(item, "bob") is True
    assert limiter.get_window_stats(parse("5/hour"), "ann").remaining == 5


def test_moving_window_slides(storage):
    limiter = MovingWindowRateLimiter(storage)
    item = parse("2 per 1 second")
    assert limiter.hit(item, "k")
    time.sleep(0.5)
    assert limiter.hit(item, "k")
    assert not limiter.hit(item, "k")
    time.sleep(0.6)  # the first hit has left the window, the second has not
    assert limiter.get_window_stats(item, "k").remaining == 1
    assert limiter.hit(item, "k")
    assert not limiter.hit(item, "k")


def test_moving_window_costs(storage):
    limiter = MovingWindowRateLimiter(storage)
    item = parse("5/minute")
    assert limiter.hit(item, "k", cost=3)
    assert not limiter.hit(item, "k", cost=3)
    assert limiter.hit(item, "k", cost=2)
    assert not limiter.hit(item, "k")
    assert not limiter.hit(parse("2/minute"), "k", cost=3)  # more than the limit: never


def test_fixed_window_counts_from_the_first_hit_and_expires(storage):
    limiter = FixedWindowRateLimiter(storage)
    item = parse("3 per 1 second")
    first = time.time()
    assert [limiter.hit(item, "k") for _ in range(4)] == [True, True, True, False]
    reset, remaining = limiter.get_window_stats(item, "k")
    assert remaining == 0 and first + 1 <= reset <= first + 1.5
    time.sleep(1.1)
    assert limiter.test(item, "k")
    assert limiter.get_window_stats(item, "k").remaining == 3
    assert limiter.hit(item, "k")
    assert limiter.get_window_stats(item, "k").remaining == 2


def test_sliding_window_counter_allows_exactly_n(storage):
    limiter = SlidingWindowCounterRateLimiter(storage)
    item = parse("4/minute")
    assert [limiter.hit(item, "k") for _ in range(5)] == [True] * 4 + [False]
    assert limiter.get_window_stats(item, "k").remaining == 0
    limiter.clear(item, "k")
    assert limiter.hit(item, "k")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_clear_forgets_one_key_and_reset_all(storage, strategy):
    limiter = strategy(storage)
    item = parse("1/minute")
    assert limiter.hit(item, "a") and limiter.hit(item, "b")
    assert not limiter.hit(item, "a") and not limiter.hit(item, "b")
    limiter.clear(item, "a")
    assert limiter.hit(item, "a")
    assert not limiter.hit(item, "b")
    assert storage.reset() >= 2
    assert limiter.hit(item, "a") and limiter.hit(item, "b")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_storages_on_one_file_share_the_counts(path, strategy):
    """What two gunicorn workers do: each builds its own storage on the same file."""
    one = strategy(storage_from_string(storage_uri(path)))
    two = strategy(storage_from_string(storage_uri(path)))
    item = parse("4/minute")
    assert [limiter.hit(item, "k") for limiter in (one, two, one, two)] == [True] * 4
    assert not one.hit(item, "k") and not two.hit(item, "k")


def _hammer(storage, item_text, attempts, threads, results):
    """Hit one key from several threads at once; put this process's successes."""
    assert storage.check()  # the thread that forked: its inherited connection is replaced
    limiter = MovingWindowRateLimiter(storage)
    item = parse(item_text)
    allowed = []
    barrier = threading.Barrier(threads)

    def run():
        barrier.wait()
        allowed.extend(limiter.hit(item, "shared") for _ in range(attempts))

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    results.put(sum(allowed))


def test_forked_processes_and_their_threads_let_exactly_the_limit_through(storage, path):
    """The parent uses the storage before forking (as a preloaded app could): each child
    must open its own connection, and together they must not overshoot by one."""
    limiter = MovingWindowRateLimiter(storage)
    assert limiter.hit(parse("1/minute"), "parent")
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    processes = [
        context.Process(target=_hammer, args=(storage, "37/minute", 10, 4, results))
        for _ in range(4)
    ]
    for process in processes:
        process.start()
    totals = [results.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert sum(totals) == 37  # of 160 attempts
    assert limiter.get_window_stats(parse("37/minute"), "shared").remaining == 0
    assert storage.check()  # the parent's own connection still works after the forks


def test_expired_entries_are_pruned(path):
    storage = storage_from_string(storage_uri(path), prune_interval=0)
    moving, fixed = MovingWindowRateLimiter(storage), FixedWindowRateLimiter(storage)
    item = parse("3 per 1 second")
    for i in range(50):
        moving.hit(item, f"moving-{i}")
        fixed.hit(item, f"fixed-{i}")
    assert rows(path) == 100
    time.sleep(1.1)
    assert moving.hit(item, "one more")
    assert rows(path) == 1  # every entry whose window had passed is gone


def test_an_unwritable_location_fails_the_check_instead_of_raising(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    storage = storage_from_string(storage_uri(blocker / "ratelimits.sqlite"))
    assert storage.check() is False
    with pytest.raises(OSError):
        MovingWindowRateLimiter(storage).hit(parse("1/minute"), "k")


def test_only_sqlite_uris_with_a_path_are_accepted():
    with pytest.raises(ValueError):
        SQLiteStorage("sqlite:///")
    assert os.path.isabs(storage_from_string("sqlite:////tmp/x.sqlite").path)
