"""The server and the client (clients/python) are separate distributions: neither imports
the other."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_top_level_names(folder):
    names = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                found = [node.module]
            else:
                continue
            for name in found:
                names.setdefault(name.split(".")[0], []).append(str(path.relative_to(ROOT)))
    return names


def test_the_server_does_not_import_the_client():
    assert imported_top_level_names(ROOT / "datahub").get("datahub_client") is None


def test_the_client_does_not_import_the_server():
    client = imported_top_level_names(ROOT / "clients/python")
    assert "datahub_client" in client  # the scan does see imports
    assert client.get("datahub") is None and client.get("flask") is None
