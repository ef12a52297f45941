"""What the caller may do to a dataset, collection or pipeline, as its bodies show it:
``"capabilities": {"write": bool, "manage": bool}`` (docs/guides/access.rst).

The rules are :func:`datahub.resources.access.may_write` and ``may_manage``'s; a
personal token of ``read`` alone may do neither (its changes are refused). A list's page
is known at once (:func:`know_page`): its grants are read in one query, not one per item.
"""

from flask import g

from datahub.identity.guard import current_claims, current_user
from datahub.identity.personal_tokens.services import allows_changes
from datahub.resources import access


def know_page(rows):
    """Work out the caller's capabilities on ``rows`` (of one model) together, for their
    bodies to show."""
    if rows:
        _known().update(_capabilities(rows))


def capabilities_of(row):
    """``{"write", "manage"}``: what the caller may do to ``row``."""
    key = (row.__tablename__, row.id)
    known = _known()
    if key not in known:
        known.update(_capabilities([row]))
    write, manage = known[key]
    return {"write": write, "manage": manage}


def _known():
    if "capabilities" not in g:
        g.capabilities = {}
    return g.capabilities


def _capabilities(rows):
    table = rows[0].__tablename__
    if not allows_changes(current_claims):
        return {(table, row.id): (False, False) for row in rows}
    found = access.capabilities(current_user, rows)
    return {(table, row_id): both for row_id, both in found.items()}
