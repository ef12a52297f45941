"""Flask-Limiter, and every use of its private parts (one module, so that an upgrade
shows here; ``tests/test_library_shapes.py`` fails when one of them changes):

* **The fast path** (``RATELIMIT_FAST_PATH``, on by default). The before-request pass
  (``_check_request_limit`` with ``in_middleware``) is skipped when no request-wide limit
  is configured, which is read from ``limit_manager._blueprint_limits``, ``_meta_limits``
  and ``_in_memory_fallback``; and the per-request state (``context``, which Flask-Limiter
  keeps in ``_limiter_request_context`` on Flask's request context) is an empty read-only
  stand-in until a check creates it. Off: Flask-Limiter does its own per-request work on
  every request (about 80 µs a request, bench/README.rst); limits count the same.
* **Rebinding.** Flask-Limiter keeps ``_strategy``, ``_swallow_errors``,
  ``_fail_on_first_breach``, ``_key_prefix``, ``_storage_options``, ``_storage_dead`` and
  ``_in_memory_fallback_enabled`` from the first app it was bound to; they are reset when
  it is bound to another. Only a process that builds several apps does that (the tests);
  a deployed worker builds one, so no setting: it never runs.
* **The store's loss.** ``_storage_dead`` (Flask-Limiter's flag: counting in memory
  because the store failed) is watched, to log and count the fall back and the return
  (datahub.platform.fallbacks), and cleared as soon as the store answers a check, made
  every ``RATELIMIT_STORE_RECHECK_SECONDS`` by a thread while it is lost (Flask-Limiter
  checks only when a limit is checked, waiting 1, 2, 4 ... up to 32 s between checks,
  during which each process of each host counts alone).
"""

import logging
import threading
import time
from types import MappingProxyType

import flask_limiter
from flask import request

import datahub.platform.ratelimit_store  # noqa: F401  (registers the sqlite:/// rate-limit storage)
from datahub.app.flask_app import request_context
from datahub.platform import fallbacks
from datahub.platform.audit import audit

log = logging.getLogger(__name__)


def client_address():
    """The client's address as the app sees it: after ProxyFix, which trusts
    X-Forwarded-For only for the configured number of proxies (PROXY_FIX_X_FOR)."""
    return request.remote_addr or "unknown"


class _NothingChecked:
    """Flask-Limiter's per-request state when no limit was checked: empty and read-only,
    so that a write (which only a check makes) would fail loudly, never leak."""

    __slots__ = ()
    view_rate_limit = None
    view_rate_limits = ()
    conditional_deductions = MappingProxyType({})
    seen_limits = frozenset()

    def reset(self):
        pass


_NOTHING_CHECKED = _NothingChecked()


class Limiter(flask_limiter.Limiter):
    """Flask-Limiter with the fast path (``RATELIMIT_FAST_PATH``), rebound to each new
    app's configuration (storage, key prefix, enabled) instead of keeping the first one's."""

    fast_path = False  # until bound to an app
    apps_bound = 0
    store_recheck_seconds = 1.0
    _store_lost = False

    def init_app(self, app):
        # Without Flask's request context (datahub.app.flask_app): public API only.
        self.fast_path = bool(app.config["RATELIMIT_FAST_PATH"]) and request_context is not None
        self.store_recheck_seconds = float(app.config["RATELIMIT_STORE_RECHECK_SECONDS"])
        if self.apps_bound:
            self.enabled = True
            self._strategy = None
            self._swallow_errors = None
            self._fail_on_first_breach = None
            self._key_prefix = ""
            self._storage_options = {}
            self._storage_dead = False
            self._in_memory_fallback_enabled = False
            self.limit_manager.set_application_limits([])  # RATELIMIT_APPLICATION, if any
            self.limit_manager.set_default_limits([])  # RATELIMIT_DEFAULT, if any
        self.apps_bound += 1
        super().init_app(app)

    @property
    def context(self):
        # Flask-Limiter's after-request and teardown hooks read its per-request state on
        # every request; building that state for a request that checked no limit costs
        # more than all the rest of the limiter's work (~10 µs, bench/README.rst). Until a
        # check has created it, they read an empty, read-only stand-in instead.
        if not self.fast_path:
            return super().context
        contexts = request_context().__dict__.get("_limiter_request_context")
        if contexts is None or self not in contexts:
            return _NOTHING_CHECKED
        return contexts[self]

    def forget_counts(self, key):
        """Start again the counts of this request's limits counted under ``key`` (an
        account's login attempts, once one succeeded). A storage that fails keeps them."""
        for request_limit in self.current_limits:
            if key not in request_limit.request_args:
                continue
            try:
                request_limit.limiter.clear(request_limit.limit, *request_limit.request_args)
            except Exception as exc:  # Redis or SQLite errors: the login itself stands
                log.warning("rate limits: the counts of %s were not cleared (%s)", key, exc)

    @property
    def _storage_dead(self):
        return self._store_lost

    @_storage_dead.setter
    def _storage_dead(self, dead):
        # Set by Flask-Limiter when the store fails (it then counts in memory); cleared when
        # the store answers a check again: Flask-Limiter's own, or the watcher's.
        dead = bool(dead)
        was, self._store_lost = self._store_lost, dead
        if dead and not was:
            fallbacks.fell_back("rate_limits", "the rate-limit store cannot be reached")
            threading.Thread(target=self._watch_store, name="rate-limit-store", daemon=True).start()
        elif was and not dead:
            fallbacks.recovered("rate_limits")

    def _watch_store(self):
        """While the store is lost, ask it every ``store_recheck_seconds`` whether it is
        back (whatever the traffic), and count in it again as soon as it is."""
        while self._store_lost:
            time.sleep(self.store_recheck_seconds)
            try:
                answered = self._storage is not None and self._storage.check()
            except Exception:  # noqa: BLE001  (any store's error: still lost)
                answered = False
            if answered and self._store_lost:
                self._storage_dead = False

    def _has_request_wide_limits(self):
        manager = self.limit_manager
        return bool(
            manager.application_limits
            or manager.default_limits
            or manager._blueprint_limits
            or self._meta_limits
            or self._in_memory_fallback
        )

    def _check_request_limit(self, callable_name=None, in_middleware=True):
        # The before-request pass only evaluates request-wide limits (default, application,
        # blueprint, meta, in-memory fallback); a decorated view checks its own limits when
        # it is called. With none of those configured the pass finds nothing, at about
        # 70 µs a request on every route (bench/README.rst), so it is skipped.
        if self.fast_path:
            if in_middleware and not self._has_request_wide_limits():
                return
            _ = super().context  # creates this request's state, which the check writes to
        super()._check_request_limit(callable_name, in_middleware)


def rate_limit_breached(request_limit):
    audit("rate_limited", limit=str(request_limit.limit), endpoint=request.endpoint)
