"""What ``create_app`` does with the settings once read (``finish_config``): fill in what
is derived, normalise what may be written several ways, and stop start-up with a
:class:`ConfigurationError` for a setting that cannot work."""

import ipaddress
import os
import re
from datetime import timedelta
from urllib.parse import urlsplit

from datahub.platform.errors import ConfigurationError
from datahub.platform.ratelimit_store import storage_uri
from datahub.platform.storage import check_storage_config

_ORIGIN = re.compile(
    r"^https?://[a-z0-9.-]+(:[0-9]{1,5})?$|^https?://\[[0-9a-f:.]+\](:[0-9]{1,5})?$"
)


def log_format(value):
    """LOG_FORMAT as the app uses it, ``text`` or ``json`` (gunicorn.conf.py reads it too)."""
    value = str(value or "text").strip().lower()
    if value not in ("text", "json"):
        raise ConfigurationError("LOG_FORMAT must be text or json")
    return value


def as_timedelta(value):
    """Lifetimes may come from JSON env values as plain seconds."""
    if isinstance(value, timedelta):
        return value
    return timedelta(seconds=int(value))


def normalise_origins(value):
    """CORS_ORIGINS as a list of exact ``scheme://host[:port]`` origins (lower-cased).

    A pattern, a path or ``*`` stops start-up: the list is used both by flask-cors and by
    the Origin check of the cookie endpoints, and a credentialed wildcard would let any
    site read the API as the user.
    """
    from datahub.platform.errors import ConfigurationError

    if value is None:
        return []
    if isinstance(value, str):
        value = [item for item in value.split(",") if item.strip()]
    origins = []
    for item in value:
        origin = normalise_origin(str(item))
        if not _ORIGIN.match(origin):
            raise ConfigurationError(
                f"CORS_ORIGINS entry {item!r} is not an origin like https://app.example.com "
                "(scheme, host and optional port; no path, pattern or wildcard)"
            )
        origins.append(origin)
    return origins


_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_origin(origin):
    """``scheme://host[:port]`` lower-cased, without a default port: how browsers write
    the Origin header. Anything that is not such an origin comes back merely trimmed."""
    origin = origin.strip().rstrip("/").lower()
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return origin
    if (
        not parts.scheme
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
    ):
        return origin
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is None or port == _DEFAULT_PORTS.get(parts.scheme):
        return f"{parts.scheme}://{host}"
    return f"{parts.scheme}://{host}:{port}"


def parse_networks(value):
    """METRICS_ALLOWED_NETWORKS as ``ip_network`` objects, from a list or a comma-separated
    string of CIDR networks; anything else stops start-up."""
    if isinstance(value, str):
        value = [item for item in value.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)):
        raise ConfigurationError(
            "METRICS_ALLOWED_NETWORKS must be a list of CIDR networks, e.g. "
            '["127.0.0.0/8", "10.0.0.0/8"]'
        )
    networks = []
    for item in value:
        try:
            networks.append(ipaddress.ip_network(str(item).strip()))
        except ValueError as exc:
            raise ConfigurationError(
                f"METRICS_ALLOWED_NETWORKS entry {item!r} is not a CIDR network like "
                f"10.0.0.0/8 or ::1/128 ({exc})"
            ) from None
    return tuple(networks)


def check_ldap_config(config):
    """LDAP settings that cannot work are refused at start-up, not at the first login."""
    if not config.get("LDAP_URL"):
        return
    if not str(config["LDAP_URL"]).lower().startswith(("ldap://", "ldaps://")):
        raise ConfigurationError("LDAP_URL must start with ldap:// or ldaps://")
    if not config.get("LDAP_USER_BASE"):
        raise ConfigurationError("LDAP_URL is set but LDAP_USER_BASE is not")
    if "{email}" not in str(config.get("LDAP_USER_FILTER") or ""):
        raise ConfigurationError("LDAP_USER_FILTER must contain {email}")
    roles = config.get("LDAP_GROUP_ROLES") or {}
    if not isinstance(roles, dict) or not set(roles) <= {"viewer", "editor", "admin"}:
        raise ConfigurationError(
            'LDAP_GROUP_ROLES must map roles to group DNs: {"admin": "cn=...", ...}'
        )
    if roles and not config.get("LDAP_GROUP_BASE"):
        raise ConfigurationError("LDAP_GROUP_ROLES is set but LDAP_GROUP_BASE is not")


def check_oidc_config(config):
    """OIDC settings half set, or an issuer that is not a URL, stop the start-up."""
    keys = ("OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET")
    given = [key for key in keys if config.get(key)]
    if not given:
        return
    if len(given) < len(keys):
        missing = ", ".join(key for key in keys if key not in given)
        raise ConfigurationError(f"OIDC logins need {missing} too (or none of {', '.join(keys)})")
    if not str(config["OIDC_ISSUER"]).lower().startswith(("https://", "http://")):
        raise ConfigurationError("OIDC_ISSUER must be an https:// URL")
    if "openid" not in str(config.get("OIDC_SCOPES") or "").split():
        raise ConfigurationError("OIDC_SCOPES must contain openid")


def check_isolation_config(config):
    """The memory settings must be sizes DuckDB and the process watch read alike."""
    from datahub.platform.isolation import parse_size

    for key in ("PIPELINE_MEMORY_LIMIT", "PIPELINE_MEMORY_MARGIN"):
        try:
            if parse_size(config[key]) <= 0 and key == "PIPELINE_MEMORY_LIMIT":
                raise ValueError("must be more than 0")
        except ValueError as exc:
            raise ConfigurationError(f"{key}: {exc}") from None
    for key in (
        "PIPELINE_CONCURRENCY",
        "PREVIEW_CONCURRENCY",
        "QUERY_CONCURRENCY",
        "QUERY_USER_CONCURRENCY",
        "QUERY_MAX_ROWS",
    ):
        if int(config[key]) < 1:
            raise ConfigurationError(f"{key} must be at least 1")


def check_usage_config(config):
    """USAGE_FLUSH_SECONDS is a number of seconds, 0 or more."""
    try:
        seconds = float(config["USAGE_FLUSH_SECONDS"])
    except (TypeError, ValueError):
        seconds = -1
    if not seconds >= 0:
        raise ConfigurationError("USAGE_FLUSH_SECONDS must be a number of seconds, 0 or more")
    config["USAGE_FLUSH_SECONDS"] = seconds


def finish_config(config, instance_path):
    """Derive the settings whose defaults depend on the instance folder or other keys."""
    if not config.get("SQLALCHEMY_DATABASE_URI"):
        path = os.path.join(instance_path, "datahub.sqlite")
        config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{path}"
    uri = config["SQLALCHEMY_DATABASE_URI"]
    if uri.startswith(("postgres://", "postgresql://")):  # psycopg 3, not psycopg2
        config["SQLALCHEMY_DATABASE_URI"] = "postgresql+psycopg://" + uri.split("://", 1)[1]
    if uri.startswith("sqlite"):
        engine_options = dict(config.get("SQLALCHEMY_ENGINE_OPTIONS") or {})
        engine_options.setdefault("connect_args", {}).setdefault(
            "timeout", config["SQLITE_BUSY_TIMEOUT_MS"] / 1000
        )
        config["SQLALCHEMY_ENGINE_OPTIONS"] = engine_options
    else:
        config["SQLALCHEMY_ENGINE_OPTIONS"] = {
            "pool_pre_ping": True,
            **(config.get("SQLALCHEMY_ENGINE_OPTIONS") or {}),
        }
    if not config.get("STORAGE_PATH"):
        config["STORAGE_PATH"] = os.path.join(instance_path, "storage")
    if not config.get("RATELIMIT_STORAGE_URI"):
        config["RATELIMIT_STORAGE_URI"] = storage_uri(
            os.path.join(instance_path, "ratelimits.sqlite")
        )
    if config["RATELIMIT_STORAGE_URI"].startswith(("redis://", "rediss://")):
        timeout = float(config["RATELIMIT_STORE_TIMEOUT_SECONDS"])
        options = dict(config.get("RATELIMIT_STORAGE_OPTIONS") or {})
        options.setdefault("socket_timeout", timeout)
        options.setdefault("socket_connect_timeout", timeout)
        config["RATELIMIT_STORAGE_OPTIONS"] = options

    config["JWT_ACCESS_TOKEN_EXPIRES"] = as_timedelta(config["JWT_ACCESS_TOKEN_EXPIRES"])
    config["JWT_REFRESH_TOKEN_EXPIRES"] = as_timedelta(config["JWT_REFRESH_TOKEN_EXPIRES"])
    config["JWT_DECODE_ALGORITHMS"] = config.get("JWT_DECODE_ALGORITHMS") or [
        config["JWT_ALGORITHM"]
    ]
    config["JWT_DECODE_ISSUER"] = config.get("JWT_DECODE_ISSUER") or config["JWT_ENCODE_ISSUER"]
    config["JWT_DECODE_AUDIENCE"] = (
        config.get("JWT_DECODE_AUDIENCE") or config["JWT_ENCODE_AUDIENCE"]
    )
    # Access tokens come only from the header; refresh tokens only from the cookie (each
    # view names its one location explicitly).
    config["JWT_TOKEN_LOCATION"] = ["headers", "cookies"]
    config["JWT_HEADER_TYPE"] = "Bearer"
    config["REFRESH_ABSOLUTE_LIFETIME"] = as_timedelta(
        config.get("REFRESH_ABSOLUTE_LIFETIME") or config["JWT_REFRESH_TOKEN_EXPIRES"]
    )
    config["CORS_ORIGINS"] = normalise_origins(config.get("CORS_ORIGINS"))
    config["METRICS_ALLOWED_NETWORKS"] = parse_networks(config.get("METRICS_ALLOWED_NETWORKS"))
    config["LOG_FORMAT"] = log_format(config.get("LOG_FORMAT"))
    if config["DEFAULT_VISIBILITY"] not in ("private", "internal"):
        raise ConfigurationError("DEFAULT_VISIBILITY must be private or internal")
    check_ldap_config(config)
    check_oidc_config(config)
    check_storage_config(config)
    check_isolation_config(config)
    check_usage_config(config)
    if str(config["JWT_COOKIE_SAMESITE"]).lower() == "none" and not config["JWT_COOKIE_SECURE"]:
        raise ConfigurationError(
            "JWT_COOKIE_SAMESITE=None needs JWT_COOKIE_SECURE: browsers drop such a cookie"
        )
    if not config.get("JWT_REFRESH_COOKIE_NAME"):
        secure = config["JWT_COOKIE_SECURE"]
        config["JWT_REFRESH_COOKIE_NAME"] = "__Secure-refresh_token" if secure else "refresh_token"
