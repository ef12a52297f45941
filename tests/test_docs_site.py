"""The documentation site (docs/) builds offline with Sphinx, warnings as errors: a broken
reference, a setting named in the text that does not exist, a setting without a comment or
an OpenAPI description that is not valid Markdown fails here. Sphinx and
sphinxcontrib-openapi are in the test extra: without them this fails, it does not skip."""

import importlib
import re
import subprocess
import sys

from tests.e2e.conftest import ROOT
from tests.test_layers import FEATURE_USES, LAYER_NAMES, LAYERS

DOCS = ROOT / "docs"


def build(tmp_path, *options):
    env_free = {"PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(tmp_path)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            *options,
            "-d",
            str(tmp_path / "doctrees"),
            str(DOCS),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env_free,
    )


def setting_names():
    """The settings, from the module the configuration page documents."""
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import datahub_settings
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    module = importlib.import_module(datahub_settings.CONFIG_MODULE)
    names = [
        name for name in vars(getattr(module, datahub_settings.CONFIG_CLASS)) if name.isupper()
    ]
    assert len(names) > 100
    return names


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    result = build(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    html = tmp_path / "html"
    # The generated pages: every setting, every operation of the served document.
    configuration = (html / "reference/configuration.html").read_text()
    for name in setting_names():
        assert f'id="setting-{name}"' in configuration, name
    api = (html / "reference/api.html").read_text()
    for path in (
        "/api/v1/auth/login",
        "/api/v1/datasets/{dataset_id}/file",
        "/api/v1/pipelines/{pipeline_id}/runs/{run_id}/cancel",
    ):
        assert path in api, path
    assert "Any other status:" in api
    # The layout page, from the layer test's tables: every layer and folder, every feature's
    # declared uses.
    layout = (html / "contributing/layout.html").read_text()
    for number, (title, _) in LAYER_NAMES.items():
        assert f"Layer {number}: {title}" in layout, title
    for prefix in LAYERS:
        assert prefix.replace(".", "/") in layout, prefix
    assert all(
        f'<code class="docutils literal notranslate"><span class="pre">{feature}' in layout
        for feature in FEATURE_USES
    )
    # The screenshots of the web app are in the site.
    for name in ("sign-in.png", "catalog.png", "dataset-overview.png"):
        assert (html / "_images" / name).exists(), name


def test_a_reference_to_a_setting_that_does_not_exist_fails_the_build(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(
        (DOCS / "conf.py")
        .read_text()
        .replace("DOCS = Path(__file__).resolve().parent", f"DOCS = Path({str(DOCS)!r})")
    )
    (source / "index.rst").write_text(
        "Index\n=====\n\nSee :setting:`NO_SUCH_SETTING`.\n\n.. datahub-settings::\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "-q",
            "-b",
            "html",
            str(source),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0
    assert re.search(r"setting.*NO_SUCH_SETTING", result.stderr), result.stderr
