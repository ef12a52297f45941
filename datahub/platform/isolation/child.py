"""The isolated process's side: :func:`serve` waits for one request (a line of JSON) on
stdin, limits its own address space, runs the job it names and writes ``{"ok": true,
"result": ...}`` or ``{"ok": false, "kind": ..., "message": ...}`` to stdout. The asking
process keeps stdin open until the job is over: its end of file (the asking process gone)
or its parent's end (the fork server, or the asking process where it was spawned) makes
the job exit at once. The program that calls it with the jobs is datahub.app.jobs, in a
process of its own or forked by its fork server (zygote.py)."""

import json
import os
import resource
import select
import sys
import threading
import traceback

import duckdb

from datahub.platform.isolation import JobError

NICENESS = 10  # added to the job's scheduling priority (lower priority)


WATCH_SECONDS = 0.25


def _exit_with_asker(parent):
    """Exit when stdin ends (the asking process is gone) or the parent is gone."""
    while True:
        readable, _, _ = select.select([0], [], [], WATCH_SECONDS)
        if readable:
            try:
                if not os.read(0, 4096):
                    os._exit(1)
            except OSError:
                os._exit(1)
        if os.getppid() != parent:
            os._exit(1)


def _answer(payload):
    """The answer: one line, the last thing the job writes (the asking side stops reading
    at its end and reaps the process aside)."""
    data = json.dumps(payload, allow_nan=False).encode("utf-8")
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def serve(jobs, parent=None, prepare=None):
    """Run one job of ``jobs`` (name → function of its arguments), then exit. ``parent``:
    the process whose end ends this one (by default the one that started it). A first line
    ``{"prepare": true}`` (a warm pool's spare) calls ``prepare()`` before the job's line
    comes: what every job needs, made while it waits (a DuckDB database)."""
    if parent is None:
        parent = int(os.environ.get("DATAHUB_ISOLATION_PARENT") or os.getppid())
    raw = sys.stdin.buffer.readline()
    if raw.strip() == b'{"prepare": true}':
        if prepare is not None:
            prepare()
        raw = sys.stdin.buffer.readline()
    if not raw.strip():  # a spare its pool let go of (or whose asking process is gone)
        return
    threading.Thread(target=_exit_with_asker, args=(parent,), daemon=True).start()
    request = json.loads(raw)
    limit = int(request["address_space"])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # Below the web workers: a query using every core must not slow the API's answers.
    os.nice(NICENESS)
    try:
        _answer({"ok": True, "result": jobs[request["job"]](request["args"])})
    except JobError as exc:
        _answer({"ok": False, "kind": exc.kind, "message": exc.message})
    except (MemoryError, duckdb.OutOfMemoryException) as exc:
        _answer({"ok": False, "kind": "memory", "message": str(exc)[:500]})
    except Exception as exc:  # noqa: BLE001  (the parent logs it and fails the job)
        traceback.print_exc()
        _answer({"ok": False, "kind": "crashed", "message": type(exc).__name__})
    sys.stdout.flush()
    os._exit(0)  # no interpreter teardown: DuckDB's threads may still hold memory
