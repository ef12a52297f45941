"""The OpenAPI document passes spectral's OpenAPI ruleset (``.spectral.yaml`` at the
repository's root, which extends ``spectral:oas``): no error, and no warning at all. A rule
that does not fit this service is turned off there, with a comment saying why."""

import json

import pytest

from tests.clients.conftest import ROOT, node_environment, run


def test_the_document_passes_spectral(client, node_tools, tmp_path):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(response.get_json(), indent=2))
    report = tmp_path / "spectral.json"

    result = run(
        [
            str(node_tools / "spectral"),
            "lint",
            "--ruleset",
            str(ROOT / ".spectral.yaml"),
            "--format",
            "json",
            "--output",
            str(report),
            "--fail-severity",
            "hint",
            str(document),
        ],
        cwd=ROOT,
        timeout=120,
        env=node_environment(),
    )

    if not report.exists():
        pytest.fail(f"spectral did not run:\n{result.stdout}\n{result.stderr}", pytrace=False)
    severities = {0: "error", 1: "warning", 2: "info", 3: "hint"}
    found = [
        f"{severities.get(item['severity'], item['severity'])} {item['code']} at "
        f"{'.'.join(map(str, item['path']))}: {item['message']}"
        for item in json.loads(report.read_text() or "[]")
    ]
    assert found == [], "\n".join(found)
    assert result.returncode == 0, result.stdout + result.stderr
