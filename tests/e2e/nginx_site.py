"""deploy/nginx/datahub.conf rendered and run with a throw-away certificate, in a folder of
its own: shared by tests/e2e/test_nginx.py and the benchmarks (bench/run.py)."""

import http.client
import os
import shutil
import ssl
import subprocess
import time
from pathlib import Path

from datahub.spa import DIST as SPA_DIST
from tests import processes
from tests.workers import free_port

ROOT = Path(__file__).resolve().parents[2]


def nginx_binary():
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    assert os.path.exists(binary), "nginx is needed (Debian package nginx; .ci/run installs it)"
    return binary


def make_certificate(folder):
    """A self-signed certificate for localhost: (cert path, key path)."""
    folder = Path(folder)
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            folder / "key.pem",
            "-out",
            folder / "cert.pem",
        ],
        check=True,
        capture_output=True,
    )
    return folder / "cert.pem", folder / "key.pem"


def render_site(*, port, upstream, max_body, cert, key):
    """deploy/nginx/datahub.conf with every placeholder replaced; ``upstream`` is
    gunicorn's host:port, or a list of them (one ``server`` line each)."""
    site = (ROOT / "deploy/nginx/datahub.conf").read_text()
    if not isinstance(upstream, str):
        line = next(line for line in site.splitlines() if "server __UPSTREAM__" in line)
        site = site.replace(
            line, "\n".join(line.replace("__UPSTREAM__", host) for host in upstream)
        )
        upstream = upstream[0]  # for the header comment's mention
    for placeholder, value in {
        "__LISTEN__": f"127.0.0.1:{port}",
        "__SERVER_NAME__": "localhost",
        "__TLS_CERT__": str(cert),
        "__TLS_KEY__": str(key),
        "__UPSTREAM__": upstream,
        "__MAX_BODY__": str(max_body),
        "__SPA_ROOT__": str(SPA_DIST),
    }.items():
        site = site.replace(placeholder, value)
    assert "__" not in site.replace("__Secure", "")
    return site


def write_config(folder, site, worker_connections=256):
    """nginx.conf for ``nginx -p folder``: one worker, logs, pid and temp files in
    ``folder``, the rendered site included in its http block."""
    folder = Path(folder)
    (folder / "site.conf").write_text(site)
    temp = {name: folder / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    (folder / "nginx.conf").write_text(
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\n"
        f"error_log {folder}/error.log;\nevents {{ worker_connections {worker_connections}; }}\n"
        f"http {{\n access_log {folder}/access.log;\n"
        + "".join(
            f" {name}_temp_path {path};\n"
            for name, path in [
                ("client_body", temp["body"]),
                ("proxy", temp["proxy"]),
                ("fastcgi", temp["fastcgi"]),
                ("uwsgi", temp["uwsgi"]),
                ("scgi", temp["scgi"]),
            ]
        )
        + f" include {folder}/site.conf;\n}}\n"
    )
    return folder / "nginx.conf"


def _healthz_answers(port):
    context = ssl._create_unverified_context()
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=context)
    try:
        conn.request("GET", "/healthz", headers={"Host": "localhost"})
        return conn.getresponse().status > 0
    except OSError:
        return False
    finally:
        conn.close()


class Nginx:
    """nginx in front of ``upstream`` (host:port), in ``folder``; a context manager that
    waits until it answers https://localhost:<port>/healthz and stops it on exit."""

    def __init__(self, folder, upstream, max_body, worker_connections=256):
        """``upstream``: gunicorn's host:port, or a list of them (round robin)."""
        self.folder, self.upstream, self.max_body = Path(folder), upstream, max_body
        self.worker_connections = worker_connections
        self.port = free_port()
        self.url = f"https://localhost:{self.port}"
        self.process = None

    def start(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        cert, key = make_certificate(self.folder)
        site = render_site(
            port=self.port, upstream=self.upstream, max_body=self.max_body, cert=cert, key=key
        )
        conf = write_config(self.folder, site, self.worker_connections)
        self.process = processes.popen(
            [nginx_binary(), "-p", str(self.folder), "-c", str(conf)], stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 15
        while not _healthz_answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("nginx did not start: " + self.process.stderr.read().decode())
            time.sleep(0.1)
        return self

    def stop(self):
        processes.stop(self.process)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def run_for_test(tmp_path, gunicorn_server, max_body):
    """For a pytest fixture: nginx in front of ``gunicorn_server``, stopped on exit; a
    start that fails fails the test."""
    import pytest

    server = Nginx(tmp_path, gunicorn_server.url.removeprefix("http://"), max_body)
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    return server
