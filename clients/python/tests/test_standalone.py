"""The client is a distribution of its own: it needs neither the server nor Flask, and
imports pandas, pyarrow or Polars only when a DataFrame is asked for (its extras)."""

import re
import subprocess
import sys
from importlib.metadata import distribution


def test_importing_the_client_and_the_command_loads_no_server_code():
    code = (
        "import sys, datahub_client, datahub_client.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'datahub', 'flask', 'werkzeug', 'sqlalchemy', 'gunicorn', 'pandas', 'polars', "
        "'pyarrow'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def test_it_depends_on_urllib3_and_click_and_installs_the_command():
    client = distribution("datahub-client")
    needed = {
        re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower()
        for requirement in client.requires
        if "extra ==" not in requirement
    }
    assert needed == {"urllib3", "click"}
    scripts = {e.name: e.value for e in client.entry_points if e.group == "console_scripts"}
    assert scripts == {"datahub": "datahub_client.cli:main"}
