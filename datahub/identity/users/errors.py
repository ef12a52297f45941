"""The users feature's errors (domain errors, which know no HTTP)."""

from datahub.platform.errors import Conflict, ErrorMessage, InvalidValues, NameTaken, NotFound


class UserNotFound(NotFound):
    message = "User not found"


class EmailAlreadyExists(NameTaken):
    message = "Email already exists"


class LastAdmin(Conflict):
    message = "The last active admin cannot be removed, deactivated or demoted"


class IncorrectPassword(InvalidValues):
    """A 422 on ``current_password`` rather than a 401: the caller's token is fine, and a
    401 would tell a client to refresh or log in again."""

    def __init__(self):
        super().__init__(
            {
                "current_password": [
                    ErrorMessage("current password is incorrect", "value_error.password.incorrect")
                ]
            }
        )


class UserOwnsResources(Conflict):
    message = (
        "The user owns datasets, collections or pipelines; delete them or deactivate "
        "the user instead"
    )
