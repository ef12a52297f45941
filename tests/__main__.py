"""``python -m tests [pytest arguments]``: the whole suite, in two parts, after the web app.

0. The web app (web/): its packages installed as the lockfile says (``npm ci`` when
   web/node_modules is missing or older than the lockfile), then built into
   datahub/spa/dist (``npm run build`` when the build is missing or older than a source),
   which the browser tests serve. Node.js and npm must be installed.
1. Every test not marked ``serial``, on DATAHUB_TEST_WORKERS (default 4) pytest-xdist
   workers (``--dist loadgroup``: tests are spread one by one, except that the tests of
   one ``xdist_group``, such as the modules that open many connections at once, run on
   one worker). tests/workers.py gives each worker its own databases.
2. The tests marked ``serial`` (their subject is timing: rate-limit windows, load), alone.

The arguments are pytest's and go to both parts (a ``-m`` expression is combined with each
part's). Exits with the first failing part's status, or 5 (pytest's "no tests ran") when
neither part ran a test.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

NO_TESTS_RAN = 5
ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
DIST_INDEX = ROOT / "datahub" / "spa" / "dist" / "index.html"
# What the build reads: a change to any of them makes the build out of date.
BUILD_SOURCES = (
    "src",
    "public",
    "index.html",
    "package.json",
    "package-lock.json",
    "vite.config.ts",
)


def newest_change(paths):
    """The latest modification time of ``paths`` and every file under them (0 for none)."""
    times = [0.0]
    for path in paths:
        if path.is_dir():
            times += [child.stat().st_mtime for child in path.rglob("*") if child.is_file()]
        elif path.exists():
            times.append(path.stat().st_mtime)
    return max(times)


def modified(path):
    return path.stat().st_mtime if path.exists() else None


def packages_installed():
    """Whether web/node_modules holds every package of the lockfile (the start command
    installs only the build's, ``--omit=dev``) and is not older than the lockfile."""
    lockfile, installed = WEB / "package-lock.json", WEB / "node_modules" / ".package-lock.json"
    if not installed.exists() or modified(installed) < modified(lockfile):
        return False
    wanted = json.loads(lockfile.read_text(encoding="utf-8"))["packages"]
    present = json.loads(installed.read_text(encoding="utf-8"))["packages"]
    return all(
        path in present for path, package in wanted.items() if path and not package.get("optional")
    )


def npm(*args):
    print(f"$ (cd web && npm {shlex.join(args)})", flush=True)
    return subprocess.call(["npm", *args], cwd=WEB)


def prepare_web_app():
    """Install web/'s packages and build the app when out of date; a status (0: ready)."""
    if not (shutil.which("node") and shutil.which("npm")):
        print("tests: Node.js 20.19 or later and npm are needed (the web app in web/)", flush=True)
        return 1
    if not packages_installed():
        print("tests: web/node_modules is not what web/package-lock.json says", flush=True)
        if status := npm("ci", "--no-audit", "--no-fund"):
            return status
    built = modified(DIST_INDEX)
    if built is None or built < newest_change(WEB / name for name in BUILD_SOURCES):
        print("tests: the web app's build is missing or older than its sources", flush=True)
        if status := npm("run", "build"):
            return status
    else:
        print("tests: the web app's build (datahub/spa/dist) is up to date", flush=True)
    return 0


def with_marker(args, expression):
    """``args`` with ``-m expression``, and-ed with a ``-m`` already in ``args``."""
    args = list(args)
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            args[index + 1] = f"({args[index + 1]}) and {expression}"
            return args
        if arg.startswith("-m") and not arg.startswith("--") and len(arg) > 2:
            args[index] = f"-m({arg[2:]}) and {expression}"
            return args
    return ["-m", expression, *args]


def run(args):
    print("$ pytest " + shlex.join(args), flush=True)
    return subprocess.call([sys.executable, "-m", "pytest", *args])


def main(args):
    if status := prepare_web_app():
        print(f"tests: the web app could not be prepared (status {status})", flush=True)
        return status
    workers = os.environ.get("DATAHUB_TEST_WORKERS", "4")
    # The slowest tests are listed at the end: where the pass's time goes.
    parallel = run(
        ["-n", workers, "--dist", "loadgroup", "--durations=25", *with_marker(args, "not serial")]
    )
    serial = run([*with_marker(args, "serial"), "-n", "0"])
    print(f"tests: parallel part exited {parallel}, serial part {serial}", flush=True)
    if parallel == serial == NO_TESTS_RAN:
        return NO_TESTS_RAN
    for status in (parallel, serial):
        if status not in (0, NO_TESTS_RAN):
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
