"""What a role allows (docs/guides/access.rst): viewer reads, editor also creates,
admin does everything. Any refusal is 403 ``Forbidden``. What a user may do to one
dataset, collection or pipeline also depends on its visibility and grants:
datahub.resources.access.
"""

import functools

from datahub.web.errors import Forbidden

READ_ROLES = frozenset({"viewer", "editor", "admin"})
CREATE_ROLES = frozenset({"editor", "admin"})


def _roles(user):
    return set(user.roles or [])


def require_read(user):
    if not _roles(user) & READ_ROLES:
        raise Forbidden()


def require_create(user):
    if not _roles(user) & CREATE_ROLES:
        raise Forbidden()


def require_admin(user):
    if "admin" not in _roles(user):
        raise Forbidden()


def before_body(check):
    """For a view, above its ``blp.arguments``: ``check(**path_args)`` decides (403, or
    404 for a missing resource) before the request body is read or parsed."""

    def decorator(view):
        @functools.wraps(view)
        def checked(*args, **path_args):
            check(**path_args)
            return view(*args, **path_args)

        return checked

    return decorator
