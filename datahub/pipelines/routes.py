"""/api/v1/pipelines: CRUD, and runs under /api/v1/pipelines/{pipeline_id}/runs."""
from flask import url_for
from flask.views import MethodView

from datahub.api import BEARER, Blueprint, error_responses
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.pipelines import services
from datahub.pipelines.schemas import (
    PipelineCreateSchema,
    PipelineListArgsSchema,
    PipelinePageSchema,
    PipelineSchema,
    PipelineUpdateSchema,
    RunListArgsSchema,
    RunPageSchema,
    RunSchema,
)

blp = Blueprint(
    "pipelines", __name__, url_prefix="/api/v1/pipelines", guard=authenticate,
    description="Pipelines: steps that turn one dataset's CSV file into another dataset; "
                "runs execute them",
)

_LOCATION = {"Location": {"description": "The new resource's URL", "schema": {"type": "string"}}}


@blp.route("/", strict_slashes=False)
class Pipelines(MethodView):
    @blp.doc(security=BEARER)
    @blp.arguments(PipelineListArgsSchema, location="query")
    @blp.response(200, PipelinePageSchema)
    @error_responses(blp, 401, 403, 422)
    def get(self, args):
        """List pipelines, oldest first, filtered by name, owner or source dataset."""
        permissions.require_read(current_user)
        return services.list_pipelines(args, current_user)

    @blp.doc(security=BEARER)
    @permissions.before_body(lambda: permissions.require_create(current_user))
    @blp.arguments(PipelineCreateSchema)
    @blp.response(201, PipelineSchema, headers=_LOCATION)
    @error_responses(blp, 400, 401, 403, 404, 409, 422)
    def post(self, values):
        """Create a pipeline (editors and admins); the caller owns it."""
        pipeline = services.create_pipeline(current_user, values)
        location = url_for("pipelines.PipelineById", pipeline_id=pipeline.id)
        return pipeline, 201, {"Location": location}


@blp.route("/<id:pipeline_id>")
class PipelineById(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, PipelineSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, pipeline_id):
        """One pipeline."""
        permissions.require_read(current_user)
        return services.get_pipeline(pipeline_id)

    @blp.doc(security=BEARER)
    @permissions.before_body(lambda pipeline_id: permissions.require_change(
        current_user, services.get_pipeline(pipeline_id)))
    @blp.arguments(PipelineUpdateSchema)
    @blp.response(200, PipelineSchema)
    @error_responses(blp, 400, 401, 403, 404, 409, 422)
    def patch(self, values, pipeline_id):
        """Change any field (the owner, if an editor, or an admin); ``steps`` is replaced
        whole. A running run keeps the steps it started with; a queued one will use these."""
        return services.update_pipeline(services.get_pipeline(pipeline_id), values)

    @blp.doc(security=BEARER)
    @blp.response(204, description="Deleted with its runs; the output dataset stays")
    @error_responses(blp, 401, 403, 404, 422)
    def delete(self, pipeline_id):
        """Delete a pipeline and its runs (the owner, if an editor, or an admin)."""
        pipeline = services.get_pipeline(pipeline_id)
        permissions.require_change(current_user, pipeline)
        services.delete_pipeline(pipeline)


@blp.route("/<id:pipeline_id>/runs", strict_slashes=False)
class Runs(MethodView):
    @blp.doc(security=BEARER)
    @blp.arguments(RunListArgsSchema, location="query")
    @blp.response(200, RunPageSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, args, pipeline_id):
        """The pipeline's runs, newest first."""
        permissions.require_read(current_user)
        return services.list_runs(services.get_pipeline(pipeline_id), args)

    @blp.doc(security=BEARER)
    @blp.response(201, RunSchema, headers=_LOCATION)
    @error_responses(blp, 401, 403, 404, 409, 422)
    def post(self, pipeline_id):
        """Queue a run (the owner, if an editor, or an admin). 409 ``Pipeline is already
        running`` while another run of it is queued or running."""
        pipeline = services.get_pipeline(pipeline_id)
        permissions.require_change(current_user, pipeline)
        run = services.start_run(pipeline)
        location = url_for("pipelines.RunById", pipeline_id=pipeline.id, run_id=run.id)
        return run, 201, {"Location": location}


@blp.route("/<id:pipeline_id>/runs/<id:run_id>")
class RunById(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, RunSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, pipeline_id, run_id):
        """One run."""
        permissions.require_read(current_user)
        return services.get_run(services.get_pipeline(pipeline_id), run_id)


@blp.route("/<id:pipeline_id>/runs/<id:run_id>/cancel")
class RunCancel(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, RunSchema, description="The run: now `cancelled`, or as it was if it "
                                              "had already finished")
    @error_responses(blp, 401, 403, 404, 422)
    def post(self, pipeline_id, run_id):
        """Cancel a queued or running run (the pipeline's owner, if an editor, or an
        admin). Idempotent: a finished run is answered unchanged with 200."""
        pipeline = services.get_pipeline(pipeline_id)
        permissions.require_change(current_user, pipeline)
        run, _ = services.cancel_run(services.get_run(pipeline, run_id))
        return run
