"""The caller's rights on a named, owned resource's row (a dataset, collection or
pipeline), as their views check them (datahub.resources.access): readable, changeable,
manageable, and a change checked before its body is read. Each feature's ``routes.py`` states its own endpoints and calls these by
name.

What the caller may not read is the row's own 404 (``Dataset not found``...): its
existence is not disclosed. Readable but not changeable is 403 ``Forbidden``.
"""

import functools

from datahub.identity import permissions
from datahub.identity.guard import current_user
from datahub.resources import access
from datahub.resources.capabilities import know_page
from datahub.resources.grants.services import note_visibility
from datahub.web.errors import Forbidden
from datahub.web.listing import paginate


def readable_page(query, model, args, user):
    """One page of ``query`` (already filtered to what ``user`` may read); an unfiltered
    list (only ``limit``, ``offset`` and ``sort``) takes its total from the kept counts
    (:func:`datahub.resources.access.readable_total`). The caller's capabilities on the
    page's items are worked out together (one query at most)."""
    unfiltered = not (set(args) - {"limit", "offset", "sort"})
    total = access.readable_total(model, user) if unfiltered else None
    page = paginate(query, args, total=total)
    know_page(page["items"])
    return page


def readable(row):
    """``row``, once the caller may read it (else its 404; 403 without a reading role)."""
    permissions.require_read(current_user)
    if not access.may_read(current_user, row):
        raise type(row).not_found()
    return row


def changeable(row):
    """``row``, once the caller may change it (404 unless readable, else 403)."""
    if not access.may_write(current_user, readable(row)):
        raise Forbidden()
    return row


def manageable(row):
    """``row``, once the caller may delete it, grant on it or change its visibility
    (404 unless readable, else 403)."""
    if not access.may_manage(current_user, readable(row)):
        raise Forbidden()
    return row


def apply_change(row, values, update):
    """A PATCH of ``row`` the caller may change: ``visibility`` only by its owner or an
    admin (403), then ``update(row, values)``; a changed visibility is audited."""
    before = row.visibility
    if "visibility" in values:
        manageable(row)
    update(row, values)
    note_visibility(row, before, current_user)
    return row


def changes_row(get_row):
    """For a view that changes one row, above its ``blp.arguments``: the row
    ``get_row(id)`` (404 when there is none or the caller may not read it) is looked up
    once, and the caller's right to change it checked (403), before the request's body
    is read or parsed. The view receives the row, after ``self``, in place of the id in
    its path."""

    def decorator(view):
        @functools.wraps(view)
        def with_row(self, *args, **path):
            (row_id,) = path.values()
            return view(self, changeable(get_row(row_id)), *args)

        return with_row

    return decorator
