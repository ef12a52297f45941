"""Sphinx configuration of the datahub documentation (``sphinx-build -W -b html docs
docs/_build/html``). Built offline: the API reference and the configuration reference
are generated from the code (docs/_ext/)."""

import configparser
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(DOCS / "_ext"), str(ROOT)]  # this checkout's datahub, not an installed one

_metadata = configparser.ConfigParser()
_metadata.read(ROOT / "setup.cfg")

project = "datahub"
author = "the datahub authors"
copyright = "the datahub authors, MIT licence"
release = version = _metadata["metadata"]["version"]

extensions = ["datahub_layout", "datahub_openapi", "datahub_settings"]
exclude_patterns = ["_build"]
nitpicky = True  # a :setting: or :ref: that names nothing fails the build
highlight_language = "none"

html_theme = "alabaster"
html_title = f"datahub {release}"
html_theme_options = {
    "description": "log in, describe datasets, run pipelines",
    "fixed_sidebar": True,
    "page_width": "1200px",
}
