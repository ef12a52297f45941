"""Where the ``datahub`` command keeps its login between runs: only the refresh cookie
(the access token lives in memory), or the personal access token of ``datahub login
--token``, in a JSON file readable by its owner alone."""

import errno
import json
import os
import tempfile
from pathlib import Path


def session_path():
    configured = os.environ.get("DATAHUB_SESSION_FILE")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "datahub" / "session.json"


class SessionFile:
    """``{"url", "cookie_name", "refresh_token"}`` or ``{"url", "token"}`` (a personal
    access token) for one service URL."""

    def __init__(self, path=None):
        self.path = Path(path) if path else session_path()

    def _data(self, url):
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("url") != url:
            return {}
        return data

    def load(self, url):
        """(cookie name, refresh token) saved for ``url``, or (None, None)."""
        data = self._data(url)
        return data.get("cookie_name"), data.get("refresh_token")

    def load_token(self, url):
        """The personal access token saved for ``url``, or None."""
        return self._data(url).get("token")

    def save_token(self, url, token):
        """Keep a personal access token (in place of any login session)."""
        self._save({"url": url, "token": token})

    def save(self, url, cookie_name, refresh_token):
        """Write (or, with no token, remove) the session, atomically and with mode 0600.
        An OSError names the session file (never the temporary one)."""
        if refresh_token is None:
            self.clear()
            return
        self._save({"url": url, "cookie_name": cookie_name, "refresh_token": refresh_token})

    def _save(self, data):
        try:
            self._write(data)
        except OSError as exc:
            # mkdir says "File exists" of a file where a folder should be: not a directory
            code = errno.ENOTDIR if isinstance(exc, FileExistsError) else exc.errno
            if not code:
                raise
            raise OSError(code, os.strerror(code), str(self.path)) from exc

    def _write(self, data):
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".session-", dir=self.path.parent)
        try:
            os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w") as out:
                json.dump(data, out)
            os.replace(temporary, self.path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def clear(self):
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
