"""A console query is bounded by something it cannot talk out of: its process's memory
watch, the deadline, the export's size, and turns per process and per user."""

import threading
import time

import pytest

from datahub.platform import isolation
from tests.query.test_api import QUERY, query

CROSS_JOIN = "SELECT count(*) FROM range(100000) a, range(100000) b WHERE a.range + b.range < 0"


@pytest.fixture
def editor(actors):
    return actors["editor"].headers


def no_jobs_left():
    deadline = time.monotonic() + 5
    while isolation.running_jobs() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not isolation.running_jobs()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT repeat('x', 200000000) AS s FROM range(20)",
        "SELECT list(range) FROM range(300000000)",
        "SELECT string_agg(repeat('y', 1000), ',') FROM range(2000000)",
    ],
)
def test_a_memory_bomb_is_stopped(app, client, editor, sql):
    app.config["QUERY_TIMEOUT_SECONDS"] = 120  # the memory watch stops it, however slow
    started = time.monotonic()
    response = query(client, editor, sql)
    assert (response.status_code, response.get_json()) == (
        422,
        {"detail": "Query ran out of memory"},
    )
    assert time.monotonic() - started < 60
    assert no_jobs_left()


def test_a_cross_join_is_stopped_at_the_deadline(app, client, editor):
    app.config["QUERY_TIMEOUT_SECONDS"] = 2
    started = time.monotonic()
    response = query(client, editor, CROSS_JOIN)
    elapsed = time.monotonic() - started
    assert (response.status_code, response.get_json()) == (422, {"detail": "Query timed out"})
    assert 1.5 < elapsed < 6
    assert no_jobs_left()


def test_one_user_holds_at_most_their_turns(app, client, actors, editor):
    app.config["QUERY_TIMEOUT_SECONDS"] = 5
    results = {}
    slow = threading.Thread(
        target=lambda: results.setdefault("slow", query(client, editor, CROSS_JOIN))
    )
    slow.start()
    deadline = time.monotonic() + 5
    while not isolation.running_jobs():  # the slow query holds its turn
        assert time.monotonic() < deadline
        time.sleep(0.02)
    second = query(client, editor, "SELECT 1")
    assert (second.status_code, second.get_json()) == (429, {"detail": "Too many queries at once"})
    assert second.headers["Retry-After"] == "1"
    other = query(client, actors["viewer"].headers, "SELECT 42")
    assert other.status_code == 200 and other.get_json()["rows"] == [[42]]
    slow.join()
    assert results["slow"].get_json() == {"detail": "Query timed out"}
    assert query(client, editor, "SELECT 1").status_code == 200


def test_a_read_only_token_may_query(client, actors):
    from tests.access.conftest import personal_token

    token = personal_token(client, actors["editor"], ["read"])
    response = client.post(QUERY, json={"sql": "SELECT 7"}, headers=token.headers)
    assert response.status_code == 200
    assert response.get_json()["rows"] == [[7]]
