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
