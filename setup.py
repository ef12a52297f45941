"""The distribution is declared in setup.cfg; this adds the web app's build to a wheel."""

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
DIST_INDEX = ROOT / "datahub" / "spa" / "dist" / "index.html"


class BuildWithWebApp(build_py):
    """A wheel carries the built web app (datahub/spa/dist), so that an installed datahub
    needs no Node.js: when it is not built yet, build it here (npm ci of what the build
    needs, then npm run build in web/). An editable install serves the checkout's own
    build, made by the start command."""

    def run(self):
        if not getattr(self, "editable_mode", False) and not DIST_INDEX.is_file():
            build_web_app()
        super().run()


def build_web_app():
    npm = shutil.which("npm")
    if not (npm and shutil.which("node")):
        raise SystemExit(
            "datahub: the web app (web/) is not built and Node.js 20.19+ with npm is not "
            "installed: install them, or run `npm ci && npm run build` in web/ elsewhere"
        )
    for args in (["ci", "--omit=dev", "--no-audit", "--no-fund"], ["run", "build"]):
        print(f"datahub: npm {' '.join(args)} (in web/)", flush=True)
        subprocess.run([npm, *args], cwd=WEB, check=True)
    if not DIST_INDEX.is_file():
        raise SystemExit(f"datahub: the web app's build wrote no {DIST_INDEX}")


setup(cmdclass={"build_py": BuildWithWebApp})
