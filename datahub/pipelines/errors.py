"""The pipelines feature's errors."""

from datahub.platform.errors import Conflict, ErrorMessage, InvalidValues, NotFound, Unprocessable


class PipelineNotFound(NotFound):
    message = "Pipeline not found"


class RunNotFound(NotFound):
    message = "Run not found"


class PipelineAlreadyRunning(Conflict):
    message = "Pipeline is already running"


class PipelinePreviewFailed(Unprocessable):
    """A pipeline's preview failed on what the data holds (a missing column, a value a
    step cannot take): the message says which step and how, without values from the
    data (datahub.pipelines.run_errors)."""


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


class InvalidTrigger(InvalidValues):
    """A trigger that cannot be used, found after the body's checks: a 422 at ``field``
    (a schedule never due any more, a loop of triggered pipelines)."""

    def __init__(self, message, type_="value_error.trigger", field="trigger"):
        super().__init__({field: [ErrorMessage(message, type_)]})


class TriggerCycle(InvalidTrigger):
    """The pipeline's output reaches its own inputs through the pipelines ``path``
    (datahub.pipelines.cycles)."""

    def __init__(self, field, path):
        names = ", ".join(str(pipeline_id) for pipeline_id in path)
        through = f"pipelines {names}" if len(path) > 1 else f"pipeline {names}"
        super().__init__(
            "would make a cycle: the output reaches this pipeline's own inputs through "
            f"{through}, triggered by new versions too",
            "value_error.trigger_cycle",
            field,
        )
