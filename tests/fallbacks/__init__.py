"""Each library-internals setting turned off (docs/contributing/internals.rst)."""

import pytest


def setting_off(name):
    """An autouse fixture that runs every test of a module with ``DATAHUB_<name>=false``.

    Its own patch, not ``monkeypatch``: a test's patches are undone before the ``app``
    fixture's teardown, this one after it."""

    @pytest.fixture(autouse=True)
    def public_api_only():
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(f"DATAHUB_{name}", "false")
            yield

    return public_api_only
