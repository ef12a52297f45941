"""Web app benchmark: the first screen, its JavaScript, a fresh clone's start.

    python -m bench.web_app                  # (a) and (b), SQLite (~3.5 minutes: making
                                             # 10,000 datasets through the API takes ~3)
    python -m bench.web_app --fresh-clone    # and (c) (~1.5 more minutes)

1. **first screen** (a): with 10,000 datasets, the time from ``page.goto`` of the catalog
   (``/app/``, signed in: the refresh cookie restores the session, as on a reload) to the
   first result card visible (CATALOG_FIRST_RESULT below), in Debian's Chromium against a
   real gunicorn on loopback; baseline: the same navigation, in the same rounds, to a page
   of the same server that makes no API call (BASELINE_PATH) until its ``load`` event.
   Target: < 1 s (median); the ratio is printed.
2. **JavaScript before the first screen** (b): the gzipped bytes of datahub/spa/dist's
   entry module, its ``modulepreload`` links and every chunk the entry imports statically
   (the catalog's own lazy chunk is added: the first screen needs it). Target ≤ 300 KB.
3. **fresh clone** (c, ``--fresh-clone``): ``git clone`` of the repository (its committed
   HEAD, or ``--clone-from``) into a temporary folder, then the README's start command
   until ``/readyz`` answers. Target ≤ 120 s.
"""

import argparse
import gzip
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import EMAIL, PASSWORD, Server, datahub_env, free_port, prepare_datahub  # noqa: E402

DIST = ROOT / "datahub/spa/dist"
CHROMIUM = "/usr/bin/chromium"
# The catalog's first result card: an item of the list labelled "Datasets" (the catalog's
# result list, web/src/pages/Catalog), as Playwright's role selector.
CATALOG_FIRST_RESULT = 'role=list[name="Datasets"] >> role=listitem >> nth=0'
CATALOG_PATH = "/app/"
BASELINE_PATH = "/api/v1/docs"  # Swagger UI's page: HTML, CSS and JS of the same server
DATASETS = 10_000
JS_BUDGET = 300 * 1024


def insert_datasets(count):
    """``count`` datasets owned by the bench user, made through the API in-process (the
    search index and events as for any create), before any server starts."""
    from datahub import create_app

    app = create_app()
    client = app.test_client()
    login = client.post("/api/v1/auth/login", json={"email": EMAIL, "password": PASSWORD})
    headers = {"Authorization": f"Bearer {login.get_json()['access_token']}"}
    started = time.perf_counter()
    for number in range(count):
        body = {"name": f"Dataset {number:05d}", "description": f"Rows of sample {number}"}
        body["tags"] = ["bench", f"group-{number % 20}"]
        response = client.post("/api/v1/datasets/", json=body, headers=headers)
        assert response.status_code == 201, response.get_json()
    print(f"setup: {count} datasets in {time.perf_counter() - started:.1f} s", flush=True)


def bench_first_screen(env, rounds):
    from playwright.sync_api import sync_playwright

    with Server("wsgi:app", env, 2) as server, sync_playwright() as playwright:
        origin = f"http://localhost:{server.port}"
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_context().new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{origin}/app/sign-in")
        page.get_by_label("Email").fill(EMAIL)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.locator(CATALOG_FIRST_RESULT).wait_for(state="visible")
        catalog, baseline = [], []
        for _ in range(rounds + 1):  # the first round warms both up and is not counted
            started = time.perf_counter()
            page.goto(origin + CATALOG_PATH, wait_until="commit")
            page.locator(CATALOG_FIRST_RESULT).wait_for(state="visible")
            catalog.append(time.perf_counter() - started)
            started = time.perf_counter()
            page.goto(origin + BASELINE_PATH, wait_until="load")
            baseline.append(time.perf_counter() - started)
        browser.close()
    app, base = statistics.median(catalog[1:]), statistics.median(baseline[1:])
    return {
        "case": "first_screen",
        "datasets": DATASETS,
        "catalog_s": app,
        "catalog_p90_s": sorted(catalog[1:])[int(0.9 * (len(catalog) - 2))],
        "baseline_s": base,
        "ratio": app / base,
        "target_s": 1.0,
        "met": app < 1.0,
    }


def entry_chunks():
    """The files the first screen loads before it shows: the entry module, its preloads,
    and the chunks the entry imports statically, transitively."""
    index = (DIST / "index.html").read_text()
    names = re.findall(r'<script type="module"[^>]* src="/app/([^"]+)"', index)
    names += re.findall(r'<link rel="modulepreload"[^>]* href="/app/([^"]+)"', index)
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        code = (DIST / name).read_text()
        # Static imports only (`import ... from "./x.js"` and `import "./x.js"`), not import().
        for imported in re.findall(
            r'(?:^|[;}\n])\s*import\s*(?:[^"\'()]*?from\s*)?["\']\./([^"\']+\.js)["\']', code
        ):
            todo.append(f"assets/{imported}")
    return sorted(seen)


def catalog_chunk():
    """The catalog screen's lazy chunk (named after its component), if the build has it."""
    found = sorted(DIST.glob("assets/CatalogPage-*.js"))
    return [f"assets/{found[0].name}"] if found else []


def bench_javascript():
    entry = entry_chunks()
    files = entry + catalog_chunk()
    sizes = {name: len(gzip.compress((DIST / name).read_bytes(), 9)) for name in files}
    total = sum(sizes.values())
    return {
        "case": "javascript",
        "files": sizes,
        "entry_gzip_kb": sum(sizes[name] for name in entry) / 1024,
        "first_screen_gzip_kb": total / 1024,
        "target_kb": JS_BUDGET / 1024,
        "met": total <= JS_BUDGET,
    }


def readme_start_command():
    readme = (ROOT / "README.rst").read_text()
    return next(
        line.strip()
        for line in readme.splitlines()
        if "requirements.txt -e ." in line and "gunicorn" in line
    )


def bench_fresh_clone(source):
    """``git clone`` + the README's start command, until /readyz answers."""
    command = readme_start_command()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        subprocess.run(["git", "clone", "-q", str(source), f"{folder}/datahub"], check=True)
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("VIRTUAL_ENV", "PYTHON", "DATAHUB_"))
        }
        env.update(DATAHUB_BIND=f"127.0.0.1:{port}", PATH=os.environ["PATH"])
        process = subprocess.Popen(
            ["bash", "-c", command],
            cwd=f"{folder}/datahub",
            env=env,
            stdout=open(f"{folder}/start.log", "w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            while process.poll() is None and time.perf_counter() - started < 600:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    time.sleep(0.2)
            elapsed = time.perf_counter() - started
            answered = process.poll() is None
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)
        log = Path(f"{folder}/start.log").read_text()[-2000:]
    if not answered:
        print(log, file=sys.stderr)
    return {
        "case": "fresh_clone",
        "command": command,
        "seconds": elapsed,
        "target_s": 120,
        "met": answered and elapsed <= 120,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--fresh-clone", action="store_true", help="also (c), ~2 minutes")
    parser.add_argument("--clone-from", default=str(ROOT), help="(c): the repository cloned")
    args = parser.parse_args(argv)
    assert (DIST / "index.html").is_file(), "build the web app first: cd web && npm run build"
    assert os.path.exists(CHROMIUM), "Debian's chromium is needed"
    results = [bench_javascript()]
    with tempfile.TemporaryDirectory() as instance:
        env = datahub_env(instance, None, 4)
        prepare_datahub(env)
        insert_datasets(DATASETS)
        results.append(bench_first_screen(env, args.rounds))
    if args.fresh_clone:
        assert shutil.which("npm"), "(c) needs Node.js and npm"
        results.append(bench_fresh_clone(args.clone_from))
    for result in results:
        print(
            json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in result.items()})
        )
    return 0 if all(result["met"] for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
