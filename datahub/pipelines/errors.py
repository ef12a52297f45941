"""The pipelines feature's errors."""

from datahub.platform.errors import Conflict, InvalidValues, NotFound
from datahub.web.validation.fields import ErrorMessage


class PipelineNotFound(NotFound):
    message = "Pipeline not found"


class RunNotFound(NotFound):
    message = "Run not found"


class PipelineAlreadyRunning(Conflict):
    message = "Pipeline is already running"


class JoinedDatasetNotFound(InvalidValues):
    """The dataset that step ``position`` joins does not exist: a 422 that points at the
    step's ``dataset_id``."""

    def __init__(self, position):
        super().__init__(
            {
                "steps": {
                    position: {
                        "dataset_id": [
                            ErrorMessage("dataset not found", "value_error.dataset_not_found")
                        ]
                    }
                }
            }
        )


class PinnedVersionNotFound(InvalidValues):
    """A pinned version (``source_version``, or step ``position``'s ``version``) that its
    dataset does not have: a 422 that points at it."""

    def __init__(self, position=None):
        problem = [ErrorMessage("version not found", "value_error.version_not_found")]
        if position is None:
            super().__init__({"source_version": problem})
        else:
            super().__init__({"steps": {position: {"version": problem}}})
