"""The code examples of the documentation (docs/), as the tests run them.

Every ``bash`` and ``python`` code block of the walk-through pages runs, in the order of
``WALKTHROUGH`` and of the page, as one bash script (a ``python`` block through the test's
Python), so that the documentation cannot drift from the service. Only the documented
address is replaced by the test server's. A block may be named (``:name:``) so that a test
can run it alone.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import ROOT

DOCS = ROOT / "docs"
WALKTHROUGH = (
    "quickstart.rst",
    "guides/versions.rst",  # before curl.rst, which ends with a logout
    "guides/access.rst",
    "guides/curl.rst",
    "guides/command.rst",
    "guides/python.rst",
    "guides/search.rst",
    "guides/understand.rst",
    "guides/query.rst",  # makes a read token DATAHUB_TOKEN: the last
)
RUNNABLE = ("bash", "python")
DOCUMENTED_URL = "http://127.0.0.1:8000"
BLOCK = re.compile(
    r"^\.\. code-block:: (?P<language>\w+)\n(?P<options>(?:    :[\w-]+:.*\n)*)\n"
    r"(?P<body>(?:(?:    .*)?\n)+)",
    re.MULTILINE,
)


def pages():
    """Every page of the site, by its path under docs/."""
    return {
        str(path.relative_to(DOCS)): path.read_text()
        for path in sorted(DOCS.rglob("*.rst"))
        if "_build" not in path.parts
    }


def code_blocks(text):
    """(language, name, code) of every ``.. code-block::`` of a page, in order."""
    blocks = []
    for match in BLOCK.finditer(text):
        name = re.search(r":name: (\S+)", match["options"])
        code = "\n".join(line[4:] for line in match["body"].splitlines()).strip() + "\n"
        blocks.append((match["language"], name and name[1], code))
    return blocks


def walkthrough_blocks():
    """(language, name, code) of every runnable block of the walk-through, in order."""
    return [
        block
        for page in WALKTHROUGH
        for block in code_blocks((DOCS / page).read_text())
        if block[0] in RUNNABLE
    ]


def named_block(name):
    """The code of the block named ``name`` (anywhere in the site)."""
    found = [
        code
        for text in pages().values()
        for _, block_name, code in code_blocks(text)
        if block_name == name
    ]
    assert len(found) == 1, f"{len(found)} code blocks are named {name}"
    return found[0]


def script(url, blocks):
    """A bash script running ``blocks`` ((language, name, code)) in order against ``url``;
    it stops at the first failing command. A python block runs with ``$PYTHON``."""
    parts = ["set -euo pipefail"]
    for number, (language, _, code) in enumerate(blocks):
        code = code.replace(DOCUMENTED_URL, url)
        if language == "python":
            parts.append(f"\"$PYTHON\" - <<'PYTHON_BLOCK_{number}'\n{code}PYTHON_BLOCK_{number}")
        else:
            parts.append(code)
    return "\n".join(parts) + "\n"


def walkthrough_script(url):
    return script(url, walkthrough_blocks())


def run_bash(text, work, home, password):
    """Run the bash script ``text`` in ``work`` as a reader of the docs would: the venv's
    ``datahub`` command on PATH, ``home`` as HOME, ``$PYTHON`` and ``$DATAHUB_PASSWORD`` set,
    and the client this test imports (also a checkout named on PYTHONPATH)."""
    venv_bin = str(Path(sys.executable).parent)  # where the `datahub` command is installed
    return subprocess.run(
        ["bash", "-c", text],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={
            "PATH": f"{venv_bin}:/usr/bin:/bin:/usr/local/bin",
            "HOME": str(home),
            "PYTHON": sys.executable,
            "DATAHUB_PASSWORD": password,
            **{name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ},
        },
    )
