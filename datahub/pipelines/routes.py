"""/api/v1/pipelines: list, create, get, change and delete, and runs under
/api/v1/pipelines/{pipeline_id}/runs."""

from flask import current_app, url_for
from flask.views import MethodView

from datahub.datasets.openapi import STORAGE_UNAVAILABLE
from datahub.datasets.schemas import PreviewSchema
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.pipelines import previews, schemas, services
from datahub.pipelines.models import Pipeline
from datahub.resources.grants.routes import grant_views
from datahub.resources.rights import (
    apply_change,
    changeable,
    changes_row,
    manageable,
    readable,
    readable_page,
)
from datahub.web.api import Blueprint
from datahub.web.listing import paginate
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation

blp = Blueprint(
    "pipelines",
    __name__,
    url_prefix="/api/v1/pipelines",
    guard=authenticate,
    description="Pipelines: steps that turn one dataset's file (CSV, Parquet or JSON lines) "
    "into another dataset; runs execute them",
)

NOT_FOUND = (404, "`Pipeline not found`")
RUN_NOT_FOUND = (404, "`Pipeline not found`, or `Run not found`")
SOURCE_NOT_FOUND = (404, "The source dataset does not exist (`Dataset not found`)")


@blp.route("/", strict_slashes=False, endpoint="Pipelines")
class Pipelines(MethodView):
    @operation(blp, "list_pipelines", 401, 403, 422, security=BEARER)
    @blp.arguments(schemas.PipelineListArgsSchema, location="query")
    @blp.response(200, schemas.PipelinePageSchema)
    @described(
        "List pipelines",
        "One page of pipelines, oldest first or in `sort`'s order, each with the caller's "
        "`capabilities`, filtered by name, "
        "owner or source dataset (any role).",
    )
    def get(self, args):
        permissions.require_read(current_user)
        return readable_page(
            services.pipelines_query(args, current_user), Pipeline, args, current_user
        )

    @operation(
        blp, "create_pipeline", *JSON_BODY_ERRORS, 401, 403, SOURCE_NOT_FOUND, 409, security=BEARER
    )
    @permissions.before_body(lambda: permissions.require_create(current_user))
    @blp.arguments(schemas.PipelineCreateSchema)
    @blp.response(201, schemas.PipelineSchema, headers={"Location": "Location"})
    @described(
        "Create a pipeline",
        "Editors and admins; the caller owns the new pipeline, "
        "whose URL is in `Location`. 409 `Name already exists` when another has the "
        "name.",
    )
    def post(self, values):
        pipeline = services.create_pipeline(current_user, values)
        location = url_for("pipelines.PipelineById", pipeline_id=pipeline.id)
        return pipeline, 201, {"Location": location}


@blp.route("/preview", endpoint="PipelinePreview")
class PipelinePreview(MethodView):
    @operation(
        blp,
        "preview_pipeline",
        *JSON_BODY_ERRORS,
        401,
        403,
        (
            404,
            "`Dataset not found` (the source or a joined dataset, or one the caller may not "
            "read), `Version not found`, or `Dataset has no file`",
        ),
        (
            422,
            "Validation error (`loc` into the body, as for a pipeline's steps), what the "
            "data makes of the steps (which step failed and how, without values from the "
            "data), `Preview is too large` or `Preview timed out`",
        ),
        STORAGE_UNAVAILABLE,
        security=BEARER,
    )
    @blp.arguments(schemas.PipelinePreviewSchema)
    @blp.response(200, PreviewSchema)
    @described(
        "Preview a pipeline's steps",
        "The first `limit` rows of what `steps` make of the source dataset (version "
        "`source_version`, else its current one), as a dataset's preview answers them "
        "(`format` is the source's); no pipeline or run is made. Any role that may read "
        "the source and every dataset the steps join. The steps are checked as a "
        "pipeline's (422 with `loc` into `steps`) and executed as a run executes them, in "
        "a process of the previews' own, within PREVIEW_TIMEOUT_SECONDS, the pipelines' "
        "memory limit and PREVIEW_MAX_BYTES. A personal access token with the `read` "
        "scope alone may call it: it changes nothing.",
    )
    def post(self, values):
        permissions.require_read(current_user)
        return previews.preview_pipeline(values, current_user, current_app.config)


@blp.route('/<id(besides="preview"):pipeline_id>', endpoint="PipelineById")
class PipelineById(MethodView):
    @operation(blp, "get_pipeline", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(200, schemas.PipelineSchema)
    @described("Get a pipeline", "One pipeline the caller may read.")
    def get(self, pipeline_id):
        return readable(services.get_pipeline(pipeline_id))

    @operation(
        blp,
        "update_pipeline",
        *JSON_BODY_ERRORS,
        401,
        (
            403,
            "`Forbidden`: the caller may not change the pipeline (or its `visibility`), or "
            "reads but may not write the dataset its output name names",
        ),
        (
            404,
            "`Pipeline not found`; `Dataset not found`: an input of the pipeline as it will "
            "be, or the dataset its output name names, that the caller may not read",
        ),
        409,
        security=BEARER,
    )
    @changes_row(services.get_pipeline)
    @blp.arguments(schemas.PipelineUpdateSchema)
    @blp.response(200, schemas.PipelineSchema)
    @described(
        "Change a pipeline",
        "Change any field (the owner, if an editor, a `write` grantee, or an admin; "
        "`visibility` only the owner or an admin); `steps` is replaced whole. A change of "
        "`source_dataset_id`, `source_version`, `steps`, `output_dataset_name` or "
        "`output_format` needs the caller to read every input of the pipeline as it will "
        "be, kept ones too (else 404 `Dataset not found`), and to write the dataset that "
        "has the output name, if any (404 `Dataset not found` unless readable, else 403 "
        "`Forbidden`). A running run keeps the steps it started with; a queued one will "
        "use these.",
    )
    def patch(self, pipeline, values):
        return apply_change(
            pipeline,
            values,
            lambda row, values: services.update_pipeline(row, values, current_user),
        )

    @operation(blp, "delete_pipeline", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(204, description="Deleted with its runs; the output dataset stays")
    @described(
        "Delete a pipeline",
        "Delete a pipeline and its runs (the owner, if an "
        "editor, or an admin). Its output dataset stays.",
    )
    def delete(self, pipeline_id):
        pipeline = services.get_pipeline(pipeline_id, for_update=True)
        services.delete_pipeline(manageable(pipeline))


@blp.route("/<id:pipeline_id>/runs", strict_slashes=False)
class Runs(MethodView):
    @operation(blp, "list_pipeline_runs", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.arguments(schemas.RunListArgsSchema, location="query")
    @blp.response(200, schemas.RunPageSchema)
    def get(self, args, pipeline_id):
        """List a pipeline's runs

        One page of the pipeline's runs, newest first (any role)."""
        return paginate(services.runs_query(readable(services.get_pipeline(pipeline_id))), args)

    @operation(
        blp,
        "start_pipeline_run",
        401,
        403,
        NOT_FOUND,
        (409, "`Pipeline is already running`: another run of it is queued or running"),
        422,
        (
            429,
            "`Too many queued runs`: the pipeline's owner has `QUOTA_QUEUED_RUNS` "
            "runs queued or running; try again after `Retry-After` seconds",
        ),
        security=BEARER,
    )
    @blp.response(201, schemas.RunSchema, headers={"Location": "Location"})
    def post(self, pipeline_id):
        """Start a run

        Queue a run of the pipeline (the owner, if an editor, or an admin); a worker
        executes it. The run's URL is in ``Location``: poll it until its ``status`` is
        ``succeeded``, ``failed`` or ``cancelled``. 409 ``Pipeline is already running``
        while another run of it is queued or running; 429 ``Too many queued runs`` while
        the pipeline's owner has ``QUOTA_QUEUED_RUNS`` runs queued or running (over all
        of the owner's pipelines), with ``Retry-After``."""
        pipeline = changeable(services.get_pipeline(pipeline_id))
        run = services.start_run(pipeline)
        location = url_for("pipelines.RunById", pipeline_id=pipeline.id, run_id=run.id)
        return run, 201, {"Location": location}


@blp.route("/<id:pipeline_id>/runs/<id:run_id>")
class RunById(MethodView):
    @operation(blp, "get_pipeline_run", 401, 403, RUN_NOT_FOUND, 422, security=BEARER)
    @blp.response(200, schemas.RunSchema)
    def get(self, pipeline_id, run_id):
        """Get a run

        One run of the pipeline: its status, counts and error (any role). The error
        says which step failed and how, never quoting a value from the data."""
        return services.get_run(readable(services.get_pipeline(pipeline_id)), run_id)


@blp.route("/<id:pipeline_id>/runs/<id:run_id>/cancel")
class RunCancel(MethodView):
    @operation(blp, "cancel_pipeline_run", 401, 403, RUN_NOT_FOUND, 422, security=BEARER)
    @blp.response(
        200,
        schemas.RunSchema,
        description="The run: now `cancelled`, or as it was if it had already finished",
    )
    def post(self, pipeline_id, run_id):
        """Cancel a run

        Cancel a queued or running run (the pipeline's owner, if an editor, or an admin).
        Idempotent: a finished run is answered unchanged with 200."""
        pipeline = changeable(services.get_pipeline(pipeline_id))
        run, _ = services.cancel_run(services.get_run(pipeline, run_id))
        return run


PipelineGrants, PipelineGrant = grant_views(blp, services.get_pipeline, "pipeline_id", "pipeline")
blp.add_url_rule("/<id:pipeline_id>/grants", "PipelineGrants", PipelineGrants, strict_slashes=False)
blp.add_url_rule("/<id:pipeline_id>/grants/<id:grant_id>", "PipelineGrant", PipelineGrant)
