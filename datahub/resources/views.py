"""What the views of named, owned resources (datasets, collections, pipelines) share: the
caller's right to change a row, and a change checked before its body is read. Each
feature's ``routes.py`` states its own endpoints and calls these by name."""

import functools

from datahub.identity import permissions
from datahub.identity.guard import current_user


def changeable(row):
    """``row``, once the caller may change it (else 403)."""
    permissions.require_change(current_user, row)
    return row


def changes_row(get_row):
    """For a view that changes one row, above its ``blp.arguments``: the row
    ``get_row(id)`` (404 when there is none) is looked up once, and the caller's right to
    change it checked (403), before the request's body is read or parsed. The view
    receives the row, after ``self``, in place of the id in its path."""

    def decorator(view):
        @functools.wraps(view)
        def with_row(self, *args, **path):
            (row_id,) = path.values()
            return view(self, changeable(get_row(row_id)), *args)

        return with_row

    return decorator
