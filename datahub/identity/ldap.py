"""Who an email and password are in an LDAP directory, their roles and groups (ldap3).

The only module that imports ldap3. Each worker process keeps a few connections bound
as the service account (LDAP_BIND_DN) in a small pool, created on first use; a user's
bind opens a connection of its own, closed at once (a bind changes a connection's
identity). Every socket has a connect and a receive timeout: a down or silent directory
costs a login those seconds and ends in ``DirectoryUnavailable``, never a held worker.
"""

import logging
import queue
import ssl
import threading
from dataclasses import dataclass

import ldap3
from flask import current_app
from ldap3.core.exceptions import LDAPException
from ldap3.utils.conv import escape_filter_chars
from ldap3.utils.dn import safe_dn

from datahub.app.registry import per_app

log = logging.getLogger(__name__)

SUCCESS, SIZE_LIMIT_EXCEEDED, NO_SUCH_OBJECT = 0, 4, 32
BUSY, UNAVAILABLE = 51, 52
# Bound with the typed password when no entry matched: the same round trip as a wrong
# password, so the answer's timing does not tell whether the email exists.
ABSENT_ENTRY = "cn=datahub-absent-entry"


class DirectoryUnavailable(Exception):
    """The directory could not be reached, did not answer in time, or refused the
    service account."""


@dataclass(frozen=True)
class DirectoryUser:
    dn: str
    name: str
    roles: tuple
    groups: tuple = ()  # the ``cn`` of each group listing the user as a ``member``


def enabled(app=None):
    return bool((app or current_app).config.get("LDAP_URL"))


def authenticate(email, password):
    """``(DirectoryUser, None)`` when the directory accepts ``password`` for ``email``,
    else ``(None, reason)``: ``empty_password``, ``unknown_email``, ``ambiguous_email`` or
    ``wrong_password``. Raises ``DirectoryUnavailable``."""
    if not password:
        # A simple bind with an empty password is an anonymous bind (RFC 4513 5.1.2),
        # which succeeds: it never goes to the directory.
        return None, "empty_password"
    return directory().authenticate(email, password)


def directory(app=None):
    """This process's ``Directory`` for the app, made on first use."""
    app = app or current_app
    return per_app(app, "datahub.ldap", lambda: Directory(app.config))


def _entries(response):
    """The entries of a search response, without its referrals (which carry no
    attributes)."""
    return [entry for entry in response or () if "attributes" in entry]


def _first(value):
    if isinstance(value, (list, tuple)):
        value = value[0] if value else ""
    return value if isinstance(value, str) else ""


def _same_dn(dn):
    try:
        return safe_dn(dn).lower()
    except LDAPException:
        return dn.strip().lower()


def _close(connection):
    try:
        connection.unbind()
    except (LDAPException, OSError):
        pass


class Directory:
    """One directory as the settings describe it, with its pool of service connections."""

    def __init__(self, config):
        self.url = config["LDAP_URL"]
        self.tls = ldap3.Tls(validate=ssl.CERT_REQUIRED, ca_certs_file=config.get("LDAP_CA_FILE"))
        self.connect_timeout = config["LDAP_CONNECT_TIMEOUT"]
        self.start_tls = bool(config["LDAP_START_TLS"])
        self.receive_timeout = config["LDAP_RECEIVE_TIMEOUT"]
        self.bind_dn = config.get("LDAP_BIND_DN") or None
        self.bind_password = config.get("LDAP_BIND_PASSWORD") or None
        self.user_base = config["LDAP_USER_BASE"]
        self.user_filter = config["LDAP_USER_FILTER"]
        self.name_attribute = config["LDAP_NAME_ATTRIBUTE"]
        self.group_base = config.get("LDAP_GROUP_BASE")
        self.group_roles = {
            _same_dn(dn): role for role, dn in (config.get("LDAP_GROUP_ROLES") or {}).items()
        }
        self.idle = queue.LifoQueue()
        self.slots = threading.BoundedSemaphore(max(1, int(config["LDAP_POOL_SIZE"])))

    # -- connections -------------------------------------------------------------------

    def _server(self):
        """A new ``ldap3.Server`` for each connection: one that failed to connect remembers
        the address as down for ~6 s (ldap3's RESET_AVAILABILITY_TIMEOUT) and answers
        "invalid server address" without trying it, so a directory that came back would
        still be refused; a shared one is also written to by every thread that opens."""
        return ldap3.Server(
            self.url, tls=self.tls, get_info=ldap3.NONE, connect_timeout=self.connect_timeout
        )

    def _open(self, user, password):
        connection = ldap3.Connection(
            self._server(),
            user=user,
            password=password,
            client_strategy=ldap3.SAFE_SYNC,
            receive_timeout=self.receive_timeout,
            read_only=True,
            raise_exceptions=False,
        )
        try:
            connection.open(read_server_info=False)
            if self.start_tls:
                connection.start_tls(read_server_info=False)
            _, result, _, _ = connection.bind(read_server_info=False)
        except BaseException:
            _close(connection)
            raise
        return connection, result["result"]

    def _service_connection(self):
        connection, code = self._open(self.bind_dn, self.bind_password)
        if code != SUCCESS:
            _close(connection)
            log.error("LDAP: the service account's bind was refused (result %s)", code)
            raise DirectoryUnavailable(f"service bind refused (result {code})")
        return connection

    def _with_service(self, operation):
        """``operation(connection)`` on a pooled service connection. A pooled one that
        fails (the directory closed it at a restart or idle timeout, or it went silent, as
        behind a load balancer that failed over) is dropped with every other idle one, all
        as old, and the operation is retried once on a new connection, whose failure is
        final. So a directory that went silent with connections pooled costs the first
        login two receive timeouts, and each later one a single timeout."""
        if not self.slots.acquire(timeout=self.receive_timeout):
            raise DirectoryUnavailable("every LDAP service connection is busy")
        try:
            try:
                pooled = self.idle.get_nowait()
            except queue.Empty:
                pooled = None
            if pooled is not None:
                try:
                    return self._run(operation, pooled)
                except LDAPException as exc:
                    log.warning(
                        "LDAP: a pooled service connection failed (%s); retrying "
                        "on a new connection",
                        exc,
                    )
                    self._drain()
            return self._run(operation, None)
        except LDAPException as exc:
            raise DirectoryUnavailable(str(exc)) from exc
        finally:
            self.slots.release()

    def _run(self, operation, connection):
        connection = connection or self._service_connection()
        try:
            result = operation(connection)
        except BaseException:
            _close(connection)
            raise
        self.idle.put(connection)
        return result

    def _drain(self):
        while True:
            try:
                _close(self.idle.get_nowait())
            except queue.Empty:
                return

    def close(self):
        """Close the idle service connections."""
        self._drain()

    # -- operations --------------------------------------------------------------------

    def _search(self, connection, base, search_filter, attributes, size_limit=0):
        _, result, response, _ = connection.search(
            base,
            search_filter,
            search_scope=ldap3.SUBTREE,
            attributes=attributes,
            size_limit=size_limit,
            time_limit=max(1, int(self.receive_timeout)),
        )
        code = result["result"]
        if code == NO_SUCH_OBJECT:
            return []
        if code not in (SUCCESS, SIZE_LIMIT_EXCEEDED):
            log.error("LDAP: search under %s failed (result %s)", base, code)
            raise DirectoryUnavailable(f"search failed (result {code})")
        return _entries(response)

    def find_user(self, email):
        """The entries LDAP_USER_FILTER finds for ``email`` (two at most)."""
        search_filter = self.user_filter.replace("{email}", escape_filter_chars(email))
        return self._with_service(
            lambda connection: self._search(
                connection, self.user_base, search_filter, [self.name_attribute], size_limit=2
            )
        )

    def groups_of(self, dn):
        """The groups under LDAP_GROUP_BASE listing ``dn`` as a ``member``, with their
        ``cn``; none when LDAP_GROUP_BASE is not set."""
        if not self.group_base:
            return []
        return self._with_service(
            lambda connection: self._search(
                connection,
                self.group_base,
                f"(member={escape_filter_chars(dn)})",
                ["cn"],
            )
        )

    def memberships(self, dn):
        """``(roles, group names)`` of ``dn``: the roles LDAP_GROUP_ROLES gives its groups
        (``("viewer",)`` when none does) and every group's ``cn``."""
        groups = self.groups_of(dn)
        found = {self.group_roles.get(_same_dn(entry["dn"])) for entry in groups}
        roles = tuple(role for role in ("admin", "editor", "viewer") if role in found)
        names = []
        for entry in groups:
            value = entry.get("attributes", {}).get("cn") or []
            names.extend(v for v in ([value] if isinstance(value, str) else value) if v)
        return roles or ("viewer",), tuple(dict.fromkeys(names))

    def bind(self, dn, password):
        """Whether ``dn`` binds with ``password``, on a connection of its own."""
        try:
            connection, code = self._open(dn, password)
        except LDAPException as exc:
            raise DirectoryUnavailable(str(exc)) from exc
        _close(connection)
        if code in (BUSY, UNAVAILABLE):
            raise DirectoryUnavailable(f"bind refused (result {code})")
        return code == SUCCESS

    def authenticate(self, email, password):
        entries = self.find_user(email)
        if len(entries) != 1:
            self.bind(f"{ABSENT_ENTRY},{self.user_base}", password)
            return None, "ambiguous_email" if entries else "unknown_email"
        entry = entries[0]
        if not self.bind(entry["dn"], password):
            return None, "wrong_password"
        name = _first(entry.get("attributes", {}).get(self.name_attribute))
        roles, groups = self.memberships(entry["dn"])
        return DirectoryUser(entry["dn"], name[:255], roles, groups), None
