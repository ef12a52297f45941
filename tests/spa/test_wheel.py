"""A wheel carries the built web app, so that an installed datahub needs no Node.js: built
from a copy of the sources without a build, it builds the app (setup.py) and holds it."""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = shutil.ignore_patterns(
    ".git",
    "node_modules",
    "dist",
    "build",
    "*.egg-info",
    "instance",
    "_build",
    ".venv",
    "__pycache__",
)


def test_the_wheel_holds_the_built_web_app(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=LEFT_OUT, symlinks=True)
    assert not (source / "datahub" / "spa" / "dist").exists()
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (wheel,) = tmp_path.glob("datahub-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "datahub/spa/dist/index.html" in names
    assert any(re.fullmatch(r"datahub/spa/dist/assets/index-[\w-]+\.js", name) for name in names)
    assert not [name for name in names if name.startswith("datahub/spa/static/")]
    index = zipfile.ZipFile(wheel).read("datahub/spa/dist/index.html").decode()
    for asset in re.findall(r'(?:src|href)="/app/(assets/[^"]+)"', index):
        assert f"datahub/spa/dist/{asset}" in names, asset
