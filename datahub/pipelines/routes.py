"""/api/v1/pipelines: CRUD, and runs under /api/v1/pipelines/{pipeline_id}/runs."""
from flask import url_for
from flask.views import MethodView

from datahub.api import BEARER, Blueprint, error_responses
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.pipelines import schemas, services
from datahub.resource_views import changeable, owned_named_views

blp = Blueprint(
    "pipelines", __name__, url_prefix="/api/v1/pipelines", guard=authenticate,
    description="Pipelines: steps that turn one dataset's CSV file into another dataset; "
                "runs execute them",
)

_LOCATION = {"Location": {"description": "The new resource's URL", "schema": {"type": "string"}}}


owned_named_views(
    blp, "pipeline", services, schemas, filters="name, owner or source dataset",
    patch_doc="""Change any field (the owner, if an editor, or an admin); ``steps`` is replaced
whole. A running run keeps the steps it started with; a queued one will use these.""",
    delete_doc="Delete a pipeline and its runs (the owner, if an editor, or an admin).",
    deleted="Deleted with its runs; the output dataset stays",
    create_errors=(400, 401, 403, 404, 409, 422),
)


@blp.route("/<id:pipeline_id>/runs", strict_slashes=False)
class Runs(MethodView):
    @blp.doc(security=BEARER)
    @blp.arguments(schemas.RunListArgsSchema, location="query")
    @blp.response(200, schemas.RunPageSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, args, pipeline_id):
        """The pipeline's runs, newest first."""
        permissions.require_read(current_user)
        return services.list_runs(services.get_pipeline(pipeline_id), args)

    @blp.doc(security=BEARER)
    @blp.response(201, schemas.RunSchema, headers=_LOCATION)
    @error_responses(blp, 401, 403, 404, 409, 422)
    def post(self, pipeline_id):
        """Queue a run (the owner, if an editor, or an admin). 409 ``Pipeline is already
        running`` while another run of it is queued or running."""
        pipeline = changeable(services.get_pipeline(pipeline_id))
        run = services.start_run(pipeline)
        location = url_for("pipelines.RunById", pipeline_id=pipeline.id, run_id=run.id)
        return run, 201, {"Location": location}


@blp.route("/<id:pipeline_id>/runs/<id:run_id>")
class RunById(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, schemas.RunSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, pipeline_id, run_id):
        """One run."""
        permissions.require_read(current_user)
        return services.get_run(services.get_pipeline(pipeline_id), run_id)


@blp.route("/<id:pipeline_id>/runs/<id:run_id>/cancel")
class RunCancel(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, schemas.RunSchema, description="The run: now `cancelled`, or as it was "
                                                      "if it had already finished")
    @error_responses(blp, 401, 403, 404, 422)
    def post(self, pipeline_id, run_id):
        """Cancel a queued or running run (the pipeline's owner, if an editor, or an
        admin). Idempotent: a finished run is answered unchanged with 200."""
        pipeline = changeable(services.get_pipeline(pipeline_id))
        run, _ = services.cancel_run(services.get_run(pipeline, run_id))
        return run
