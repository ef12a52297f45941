"""The groups feature's errors (domain errors, which know no HTTP)."""

from datahub.platform.errors import Conflict, NotFound


class GroupNotFound(NotFound):
    message = "Group not found"


class MembersKeptBySource(Conflict):
    """The members of an ``ldap`` or ``oidc`` group are kept by the login sync."""

    message = "Group members are kept by its source"
