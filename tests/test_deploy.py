"""deploy/compose: no Docker engine runs here, so the compose topology is checked for what
can be checked without one (tests/e2e/test_cluster.py runs the same topology as
processes): every setting it passes exists, the hosts share what must be shared and
nothing else, and the nginx configuration it renders is accepted by nginx."""

import subprocess
from pathlib import Path

import pytest
import yaml

from datahub.app.config import DefaultConfig
from tests.e2e.nginx_site import make_certificate, nginx_binary, write_config

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "deploy/compose"


def settings():
    lines = (COMPOSE / "datahub.env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_every_setting_the_hosts_get_is_one_the_app_reads():
    names = [name for name in settings() if name.startswith("DATAHUB_")]
    unknown = [
        name
        for name in names
        if name != "DATAHUB_WORKERS" and not hasattr(DefaultConfig, name.removeprefix("DATAHUB_"))
    ]
    assert unknown == []
    for needed in (
        "SECRET_KEY",
        "JWT_SECRET_KEY",
        "SQLALCHEMY_DATABASE_URI",
        "STORAGE_URL",
        "S3_ENDPOINT_URL",
        "RATELIMIT_STORAGE_URI",
        "AUTH_CACHE_REDIS_URL",
        "CELERY_BROKER_URL",
        "PROXY_FIX_X_FOR",
    ):
        assert "DATAHUB_" + needed in names


def test_the_hosts_share_the_settings_but_not_the_instance_folder():
    compose = yaml.safe_load((COMPOSE / "compose.yaml").read_text())
    services = compose["services"]
    app_services = ["app-a", "app-b", "worker"]
    for name in app_services:
        assert services[name]["env_file"] == "datahub.env"
        assert services[name]["image"] == "datahub:latest"
    volumes = [services[name]["volumes"][0].split(":")[0] for name in app_services]
    assert len(set(volumes)) == 3
    assert services["worker"]["command"] == ["flask", "--app", "datahub", "worker"]
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    for copied in ("requirements.txt", "gunicorn.conf.py", "wsgi.py", "datahub"):
        assert copied in dockerfile and (ROOT / copied).exists()


def test_the_rendered_nginx_configuration_has_both_hosts_and_is_valid(tmp_path):
    rendered = tmp_path / "site.conf"
    subprocess.run(
        [
            "sh",
            str(COMPOSE / "render-nginx.sh"),
            str(ROOT / "deploy/nginx/datahub.conf"),
            str(rendered),
            "--no-start",
        ],
        check=True,
    )
    site = rendered.read_text()
    directives = "\n".join(line for line in site.splitlines() if not line.lstrip().startswith("#"))
    assert "__" not in directives.replace("__Secure", "")
    servers = [
        line.split()[1]
        for line in site.splitlines()
        if line.strip().startswith("server ") and ":8000" in line
    ]
    assert servers == ["app-a:8000", "app-b:8000"]
    # nginx resolves upstream names when it loads; app-a and app-b exist only in compose's
    # network, so they are checked here as loopback addresses.
    cert, key = make_certificate(tmp_path)
    site = (
        site.replace("app-a:8000", "127.0.0.1:8001")
        .replace("app-b:8000", "127.0.0.1:8002")
        .replace("/certs/cert.pem", str(cert))
        .replace("/certs/key.pem", str(key))
        .replace("listen 443", "listen 127.0.0.1:1")
    )
    conf = write_config(tmp_path, site)
    checked = subprocess.run(
        [nginx_binary(), "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("name", ["compose.yaml", "render-nginx.sh", "datahub.env.example"])
def test_the_compose_files_are_in_the_repository(name):
    assert (COMPOSE / name).is_file()
