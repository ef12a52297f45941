"""bcrypt hashing with a configurable cost, and a constant-cost check."""

import bcrypt
from flask import current_app

from datahub.app.registry import per_app

MIN_PASSWORD_BYTES = 8
MAX_PASSWORD_BYTES = 72  # bcrypt's limit; bcrypt 5 raises beyond it


def hash_password(password):
    rounds = int(current_app.config["BCRYPT_ROUNDS"])
    return bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(rounds)).decode("ascii")


def _dummy_hash():
    """A hash at the configured cost, made once per app: checked when there is no user,
    so an unknown email costs the same time as a wrong password."""
    state = per_app(current_app, "datahub.passwords", dict)
    rounds = int(current_app.config["BCRYPT_ROUNDS"])
    if state.get("rounds") != rounds:
        state["hash"] = bcrypt.hashpw(b"not-a-password", bcrypt.gensalt(rounds))
        state["rounds"] = rounds
    return state["hash"]


def check_password(password, password_hash):
    """True if ``password`` matches. Always spends one bcrypt check, never raises on
    input: a missing hash or an overlong password is checked against a dummy and fails."""
    candidate = password.encode("utf-8")
    usable = password_hash is not None and len(candidate) <= MAX_PASSWORD_BYTES
    hashed = password_hash.encode("ascii") if usable else _dummy_hash()
    try:
        matched = bcrypt.checkpw(candidate[:MAX_PASSWORD_BYTES], hashed)
    except ValueError:  # a corrupt stored hash
        return False
    return usable and matched
