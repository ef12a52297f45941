"""The pipelines feature's errors."""
from datahub.web.errors import Conflict, NotFound


class PipelineNotFound(NotFound): detail = "Pipeline not found"
class RunNotFound(NotFound): detail = "Run not found"
class PipelineAlreadyRunning(Conflict): detail = "Pipeline is already running"
