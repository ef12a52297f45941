"""The signing secret: configured, or generated once and kept in the instance folder."""

import os
import secrets

from datahub.platform.errors import ConfigurationError

MIN_SECRET_BYTES = 32
SECRET_FILE = "secret_key"


def _instance_secret(instance_path):
    path = os.path.join(instance_path, SECRET_FILE)
    try:
        with open(path, encoding="ascii") as fh:
            value = fh.read().strip()
        if value:
            return value
    except FileNotFoundError:
        pass
    value = secrets.token_urlsafe(48)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(value + "\n")
    try:
        os.link(tmp, path)  # atomic and first-wins: concurrent workers agree on one secret
    except FileExistsError:
        os.unlink(tmp)
        return _instance_secret(instance_path)
    os.unlink(tmp)
    return value


def configure_secrets(app):
    """Fill SECRET_KEY / JWT_SECRET_KEY, refusing a configured one that is too short."""
    for key in ("SECRET_KEY", "JWT_SECRET_KEY"):
        value = app.config.get(key)
        if value and len(str(value).encode("utf-8")) < MIN_SECRET_BYTES:
            raise ConfigurationError(
                f"{key} is shorter than {MIN_SECRET_BYTES} bytes; configure a longer one "
                f"(for example: python -c 'import secrets; print(secrets.token_urlsafe(48))') "
                f"or leave it unset to have one generated in {app.instance_path}"
            )
    if not app.config.get("SECRET_KEY") or not app.config.get("JWT_SECRET_KEY"):
        generated = None
        for key in ("SECRET_KEY", "JWT_SECRET_KEY"):
            if not app.config.get(key):
                generated = generated or _instance_secret(app.instance_path)
                app.config[key] = generated
