"""The HTTP side of the client, on urllib3 (retries, pooling) without a cookie jar."""

import http.client
import json
import threading
import time
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

import urllib3
from urllib3.exceptions import ProtocolError
from urllib3.util.retry import Retry

from datahub_client.access import AccessMixin
from datahub_client.errors import AuthenticationError, DatahubError, UnreachableError, error_for
from datahub_client.events import EventsMixin
from datahub_client.profiles import ProfilesMixin
from datahub_client.query import QueryMixin
from datahub_client.resources import ResourcesMixin
from datahub_client.search import SearchMixin
from datahub_client.versions import VersionsMixin

AUTH_PATH = "/api/v1/auth"


class SeedRetry(Retry):
    """The contract's retry policy (part 7.4): 500/502/503/504 only, at most 3 retries,
    waiting 1, 2, then 4 seconds, or longer when the server's ``Retry-After`` says so.
    urllib3's own schedule starts at 0 and is not the seed's. Only idempotent methods
    are retried (urllib3's default set: no POST, no PATCH)."""

    RETRY_STATUSES = frozenset({500, 502, 503, 504})

    def __init__(self, total=3, backoff_factor=1.0, **kwargs):
        kwargs.setdefault("status_forcelist", self.RETRY_STATUSES)
        kwargs.setdefault("connect", total)
        kwargs.setdefault("read", 0)  # a request that may have arrived is not resent blindly
        kwargs.setdefault("redirect", 0)
        kwargs.setdefault("raise_on_status", False)
        kwargs.setdefault("respect_retry_after_header", True)
        super().__init__(total=total, backoff_factor=backoff_factor, **kwargs)

    # A GET or HEAD whose connection closed before any answer (a kept-alive connection the
    # server closed as it was reused: RemoteDisconnected, or a reset) is sent once more, on
    # a new connection (RFC 9112 section 9.3.1); nothing else is resent after it was sent.
    RESEND_METHODS = frozenset({"GET", "HEAD"})

    def increment(self, method=None, url=None, response=None, error=None, *args, **kwargs):
        if (
            self.read == 0
            and (method or "").upper() in self.RESEND_METHODS
            and _closed_unanswered(error)
            and not any(_closed_unanswered(entry.error) for entry in self.history)
        ):
            return self.new(read=1).increment(method, url, response, error, *args, **kwargs)
        return super().increment(method, url, response, error, *args, **kwargs)

    def get_backoff_time(self):
        if self.history and _closed_unanswered(self.history[-1].error):
            return 0.0  # that resend goes at once, and counts for no later wait
        attempts = sum(1 for entry in self.history if not _closed_unanswered(entry.error))
        if attempts == 0:
            return 0.0
        return float(min(self.backoff_max, self.backoff_factor * 2 ** (attempts - 1)))

    def sleep(self, response=None):
        delay = self.get_backoff_time()
        if self.respect_retry_after_header and response is not None:
            retry_after = self.get_retry_after(response)
            if retry_after:
                delay = max(delay, retry_after)
        if delay > 0:
            time.sleep(delay)


def _closed_unanswered(error):
    """Whether ``error`` is a connection that closed before a byte of the answer: urllib3
    says "Connection aborted." for a failure while sending or reading the status line
    ("Connection broken" once an answer had begun)."""
    if not isinstance(error, ProtocolError) or len(error.args) < 2:
        return False
    message, cause = error.args[:2]
    return message == "Connection aborted." and isinstance(
        cause, (http.client.RemoteDisconnected, ConnectionResetError)
    )


class Client(
    ResourcesMixin,
    VersionsMixin,
    ProfilesMixin,
    AccessMixin,
    EventsMixin,
    SearchMixin,
    QueryMixin,
):
    """One session with the service. Thread-safe; concurrent 401s share one refresh.

    ``token`` (a personal access token, ``dhp_...``) instead of a login: sent as the
    bearer of every request, never refreshed (a 401 is final: expired or revoked).

    ``refresh_token`` (and ``refresh_cookie_name``) resume a session kept elsewhere, as the
    ``datahub`` command does between runs; ``on_refresh_cookie(name, value)`` is called
    whenever the service sets a new refresh cookie (rotation) or deletes it (value None).
    Without an access token, the first authenticated request refreshes first."""

    def __init__(
        self,
        base_url,
        *,
        retries=3,
        backoff=1.0,
        timeout=60.0,
        verify=True,
        access_token=None,
        refresh_token=None,
        refresh_cookie_name="__Secure-refresh_token",
        on_refresh_cookie=None,
        token=None,
    ):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._http = urllib3.PoolManager(
            retries=SeedRetry(total=retries, backoff_factor=backoff),
            cert_reqs="CERT_REQUIRED" if verify else "CERT_NONE",
        )
        self.token = token  # a personal access token: the bearer, with no refresh
        self.access_token = token or access_token  # in memory only
        # The refresh cookie, kept here rather than in a cookie jar: Python's jar would
        # drop a Secure cookie on plain http (localhost development), browsers do not.
        self.refresh_cookie = None if token else refresh_token
        self.refresh_cookie_name = refresh_cookie_name
        self.on_refresh_cookie = on_refresh_cookie
        self._refresh_lock = threading.Lock()

    # -- transport ------------------------------------------------------------------------

    def request(
        self,
        method,
        path,
        *,
        json_body=None,
        params=None,
        body=None,
        headers=None,
        preload=True,
        authenticated=True,
        _renewed=False,
    ):
        """Send one request; returns the urllib3 response or raises a DatahubError."""
        url = self.base_url + path + (f"?{urlencode(params, doseq=True)}" if params else "")
        if authenticated and not self.access_token and self.refresh_cookie and not _renewed:
            self._renew(None)  # a new process or tab: the cookie is there, the token not
        headers = dict(headers or {})
        if json_body is not None:
            body = json.dumps(json_body).encode()
            headers["Content-Type"] = "application/json"
        if authenticated and self.access_token:
            headers["Authorization"] = f"Bearer {self.access_token}"
        if path.startswith(AUTH_PATH) and self.refresh_cookie:
            headers["Cookie"] = f"{self.refresh_cookie_name}={self.refresh_cookie}"
        sent_token = self.access_token
        position = body.tell() if hasattr(body, "tell") else None
        try:
            response = self._http.request(
                method,
                url,
                body=body,
                headers=headers,
                timeout=self.timeout,
                preload_content=preload,
                body_pos=position,
            )
        except urllib3.exceptions.HTTPError as exc:
            raise UnreachableError(self.base_url, exc) from exc
        self._keep_refresh_cookie(response)
        if response.status < 400:
            return response
        detail = self._detail(response)
        if (
            response.status == 401
            and detail == "Token has expired"
            and authenticated
            and not _renewed
            and self.refresh_cookie
        ):
            self._renew(sent_token)
            if hasattr(body, "seek") and position is not None:
                body.seek(position)
            return self.request(
                method,
                path,
                json_body=json_body,
                params=params,
                body=body,
                headers=headers,
                preload=preload,
                authenticated=authenticated,
                _renewed=True,
            )
        raise error_for(response.status, detail)

    def _json(self, method, path, **kwargs):
        return self._decode(self.request(method, path, **kwargs), path)

    def _decode(self, response, path):
        """The JSON of a successful answer (None if empty); anything else is not datahub."""
        if not response.data:
            return None
        try:
            return json.loads(response.data)
        except ValueError:
            raise DatahubError(
                response.status, f"unexpected answer from {self.base_url}{path} (not JSON)"
            ) from None

    @staticmethod
    def _detail(response):
        data = response.data if response.data is not None else response.read()
        try:
            return json.loads(data)["detail"]
        except (ValueError, KeyError, TypeError):
            return data.decode("utf-8", "replace")[:500] or response.reason

    def _keep_refresh_cookie(self, response):
        for header in response.headers.getlist("Set-Cookie"):
            cookie = SimpleCookie()
            cookie.load(header)
            for name, morsel in cookie.items():
                if name.endswith("refresh_token"):
                    self.refresh_cookie_name = name
                    self.refresh_cookie = morsel.value or None
                    if morsel["max-age"] == "0":
                        self.refresh_cookie = None
                    if self.on_refresh_cookie is not None:
                        self.on_refresh_cookie(name, self.refresh_cookie)

    def _renew(self, expired_token):
        """One refresh for any number of threads that saw the same token expire."""
        with self._refresh_lock:
            if self.access_token != expired_token:
                return  # another thread renewed it already
            self.refresh()

    # -- auth -----------------------------------------------------------------------------

    def login(self, email, password):
        """Log in with a password; a personal access token set before is dropped."""
        self.token = None
        body = self._json(
            "POST",
            f"{AUTH_PATH}/login",
            authenticated=False,
            json_body={"email": email, "password": password},
        )
        self.access_token = body["access_token"]
        return body

    def refresh(self):
        if not self.refresh_cookie:
            raise AuthenticationError(401, "Not authenticated")
        try:
            body = self._json("POST", f"{AUTH_PATH}/refresh", authenticated=False)
        except AuthenticationError:
            # Refused (expired, revoked, replayed): the cookie is worth nothing any more.
            self.access_token = self.refresh_cookie = None
            if self.on_refresh_cookie is not None:
                self.on_refresh_cookie(self.refresh_cookie_name, None)
            raise
        self.access_token = body["access_token"]
        return body

    def logout(self):
        """End the session: the cookie's refresh token and the bearer's access token. A
        personal access token is only forgotten here (it stays valid until revoked:
        ``token_revoke``, or until it expires)."""
        if self.token is not None:
            self.token = self.access_token = None
            return {"message": "Forgot the personal access token (it stays valid)"}
        try:
            return self._json(
                "POST", f"{AUTH_PATH}/logout", authenticated=self.access_token is not None
            )
        finally:
            self.access_token = None
            if self.refresh_cookie is not None and self.on_refresh_cookie is not None:
                self.on_refresh_cookie(self.refresh_cookie_name, None)
            self.refresh_cookie = None

    def me(self):
        return self._json("GET", f"{AUTH_PATH}/me")

    @property
    def origin(self):
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}"
