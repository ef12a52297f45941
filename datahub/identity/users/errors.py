"""The users feature's errors."""
from datahub.web.errors import Conflict, NameAlreadyExists, NotFound, RequestValidationError


class UserNotFound(NotFound): detail = "User not found"
class EmailAlreadyExists(NameAlreadyExists): detail = "Email already exists"
class LastAdmin(Conflict): detail = "The last active admin cannot be removed, deactivated or demoted"


class IncorrectPassword(RequestValidationError):
    """422 rather than 401: the caller's token is fine, and a 401 would tell a client to
    refresh or log in again."""

    def __init__(self):
        super().__init__([{"loc": ["body", "current_password"],
                           "msg": "current password is incorrect",
                           "type": "value_error.password.incorrect"}])


class UserOwnsResources(Conflict): detail = "The user owns datasets, collections or pipelines; delete them or deactivate the user instead"
