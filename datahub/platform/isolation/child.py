"""The isolated process's side: :func:`serve` waits for one request on stdin, limits its
own address space, runs the job it names and writes ``{"ok": true, "result": ...}`` or
``{"ok": false, "kind": ..., "message": ...}`` to stdout. It exits as soon as the process
that started it is gone. The program that calls it with the jobs is datahub.app.jobs."""

import json
import os
import resource
import sys
import threading
import time
import traceback

import duckdb

from datahub.platform.isolation import JobError

NICENESS = 10  # added to the job's scheduling priority (lower priority)


def _exit_with_parent(parent):
    while True:
        time.sleep(0.25)
        if os.getppid() != parent:
            os._exit(1)


def _answer(payload):
    data = json.dumps(payload, allow_nan=False).encode("utf-8")
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def serve(jobs):
    """Run one job of ``jobs`` (name → function of its arguments), then exit."""
    parent = int(os.environ.get("DATAHUB_ISOLATION_PARENT") or os.getppid())
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    # DuckDB's first database in a process costs twice a later one's: pay it while spare.
    duckdb.connect(":memory:").close()
    raw = sys.stdin.buffer.read()
    if not raw:  # a spare its pool let go of
        return
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
