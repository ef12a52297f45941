"""The web app's API client is generated, and must not drift: web/openapi.json is the
document the service serves now, and web/src/api/gen is what ``openapi-ts`` makes of it."""

import json
import os
import subprocess
from pathlib import Path

from datahub.spa.document import openapi_document

WEB = Path(__file__).resolve().parents[2] / "web"
REGENERATE = "python -m datahub.spa.document web/openapi.json && (cd web && npx openapi-ts)"
CONFIG_OUTPUT = "output: { path: 'src/api/gen' }"


def test_the_committed_document_is_the_one_the_service_serves():
    committed = json.loads((WEB / "openapi.json").read_text(encoding="utf-8"))
    served = openapi_document()
    assert committed == served, f"web/openapi.json is out of date: run `{REGENERATE}`"


def files(folder):
    """Every file under ``folder``, by its path relative to it, with its bytes."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_the_committed_client_is_what_the_generator_makes_of_the_document(tmp_path):
    generator = WEB / "node_modules" / ".bin" / "openapi-ts"
    assert generator.exists(), "web/node_modules is not installed: `cd web && npm ci`"
    config = (WEB / "openapi-ts.config.ts").read_text(encoding="utf-8")
    assert CONFIG_OUTPUT in config, "web/openapi-ts.config.ts no longer says where it writes"
    # A copy of web/'s generator setup writing elsewhere; its imports resolve through the link.
    (tmp_path / "openapi-ts.config.ts").write_text(
        config.replace(CONFIG_OUTPUT, "output: { path: 'generated' }"), encoding="utf-8"
    )
    (tmp_path / "openapi.json").write_bytes((WEB / "openapi.json").read_bytes())
    (tmp_path / "node_modules").symlink_to(WEB / "node_modules", target_is_directory=True)
    run = subprocess.run(
        [str(generator)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    generated, committed = files(tmp_path / "generated"), files(WEB / "src" / "api" / "gen")
    drift = sorted(
        name
        for name in generated.keys() | committed.keys()
        if generated.get(name) != committed.get(name)
    )
    assert not drift, f"web/src/api/gen is not the generated client: run `{REGENERATE}`: {drift}"
