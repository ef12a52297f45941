"""/api/v1/datasets/{dataset_id}/versions: a dataset's versions, their files and previews,
pinning, restore and delete (docs/guides/versions.rst)."""

from flask import current_app, url_for
from flask.views import MethodView

from datahub.datasets import diffs, downloads, previews, schemas, services, versions
from datahub.datasets.blueprint import blp
from datahub.datasets.openapi import (
    DOWNLOAD_PARAMETERS,
    DOWNLOAD_RESPONSES,
    PRECONDITION_FAILED,
    PREVIEW_UNPROCESSABLE,
    STORAGE_UNAVAILABLE,
)
from datahub.identity import permissions
from datahub.identity.guard import current_user
from datahub.resources.rights import changeable, manageable, readable
from datahub.web.listing import ListArgsSchema, paginate
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation

NOT_FOUND = (404, "`Dataset not found` or `Version not found`")


def readable_version(dataset_id, number):
    """The dataset and its version, for a caller who may read the dataset, else 404."""
    dataset = readable(services.get_dataset(dataset_id))
    return dataset, versions.get_version(dataset.id, number)


def changeable_version(dataset_id, number, for_update=False, check=changeable):
    """The dataset (locked: ``for_update``) and its version, for a caller who may change
    the dataset (``check``: or manage it)."""
    dataset = check(services.get_dataset(dataset_id, for_update=for_update))
    return dataset, versions.get_version(dataset.id, number)


class DatasetVersions(MethodView):
    @operation(
        blp, "list_dataset_versions", 401, 403, (404, "`Dataset not found`"), 422, security=BEARER
    )
    @blp.arguments(ListArgsSchema, location="query")
    @blp.response(200, schemas.VersionPageSchema)
    @described("List a dataset's versions", "Newest first (any role).")
    def get(self, args, dataset_id):
        readable(services.get_dataset(dataset_id))
        return paginate(versions.versions_query(dataset_id), args)


class DatasetVersionById(MethodView):
    @operation(blp, "get_dataset_version", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(200, schemas.VersionSchema)
    @described("Get a version", "One version of a dataset (any role).")
    def get(self, dataset_id, version):
        return readable_version(dataset_id, version)[1]

    @operation(
        blp, "update_dataset_version", *JSON_BODY_ERRORS, 401, 403, NOT_FOUND, security=BEARER
    )
    @permissions.before_body(lambda dataset_id, version: changeable_version(dataset_id, version))
    @blp.arguments(schemas.VersionUpdateSchema)
    @blp.response(200, schemas.VersionSchema)
    @described(
        "Pin a version or change its message",
        "A pinned version is kept whatever `VERSIONS_KEEP` says (the owner, if an editor, "
        "or an admin).",
    )
    def patch(self, values, dataset_id, version):
        _dataset, row = changeable_version(dataset_id, version)  # as checked: no new query
        return versions.update_version(row, values)

    @operation(
        blp,
        "delete_dataset_version",
        401,
        (403, "Forbidden: not the owner (an editor) or an admin, or `force` by a non-admin"),
        NOT_FOUND,
        (409, "`Version is current`, or `Version is used by a run` (without `force`)"),
        422,
        security=BEARER,
    )
    @blp.arguments(schemas.VersionDeleteArgsSchema, location="query")
    @blp.response(204, description="Deleted; its bytes go once no version refers to them")
    @described(
        "Delete a version",
        "Not the current version (409 `Version is current`), nor one a running run reads "
        "or a succeeded run read (409 `Version is used by a run`) unless an admin sends "
        "`force=true`; a failed or cancelled run keeps nothing. The owner, if an editor, "
        "or an admin.",
    )
    def delete(self, args, dataset_id, version):
        dataset, row = changeable_version(dataset_id, version, for_update=True, check=manageable)
        if args["force"]:
            permissions.require_admin(current_user)
        versions.delete_version(dataset, row, force=args["force"])


class DatasetVersionFile(MethodView):
    @operation(
        blp,
        "download_dataset_version_file",
        401,
        403,
        NOT_FOUND,
        PRECONDITION_FAILED,
        416,
        422,
        STORAGE_UNAVAILABLE,
        security=BEARER,
        parameters=DOWNLOAD_PARAMETERS,
        responses=DOWNLOAD_RESPONSES,
    )
    def get(self, dataset_id, version):
        """Download a version's file

        As the dataset's file (``GET /datasets/{id}/file``): preconditions, one range,
        the ETag (the version's sha256), or a presigned URL; it counts as a download in
        the dataset's ``stats``. Any role."""
        _dataset, row = readable_version(dataset_id, version)
        return downloads.file_response(downloads.Download.of_version(row))


class DatasetVersionPreview(MethodView):
    @operation(
        blp,
        "preview_dataset_version",
        401,
        403,
        NOT_FOUND,
        PREVIEW_UNPROCESSABLE,
        STORAGE_UNAVAILABLE,
        security=BEARER,
    )
    @blp.arguments(schemas.PreviewArgsSchema, location="query")
    @blp.response(200, schemas.PreviewSchema)
    def get(self, args, dataset_id, version):
        """Preview a version's file as a table

        As the dataset's preview, of this version's bytes. Any role."""
        dataset, row = readable_version(dataset_id, version)
        return previews.preview_stored(
            row.file_key, dataset.name, args["limit"], current_app.config
        )


class DatasetVersionRestore(MethodView):
    @operation(blp, "restore_dataset_version", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.arguments(schemas.VersionMessageArgsSchema, location="query")
    @blp.response(201, schemas.VersionSchema, headers={"Location": "Location"})
    @described(
        "Restore a version",
        "A new, current version with this version's content; no bytes are copied. Its "
        "`message` is `message`, else `Restored from version N`. The owner, if an "
        "editor, or an admin.",
    )
    def post(self, args, dataset_id, version):
        dataset, row = changeable_version(dataset_id, version, for_update=True)
        restored = versions.restore_version(dataset, row, current_user.id, args.get("message"))
        location = url_for(
            "datasets.DatasetVersionById", dataset_id=dataset.id, version=restored.version
        )
        return restored, 201, {"Location": location}


class DatasetDiff(MethodView):
    @operation(
        blp,
        "diff_dataset_versions",
        401,
        403,
        NOT_FOUND,
        (
            422,
            "Validation error, `Dataset file is not tabular`, a key that is not a column of "
            "both versions or not unique in one, `Diff is too large` or `Diff timed out`",
        ),
        STORAGE_UNAVAILABLE,
        security=BEARER,
    )
    @blp.arguments(schemas.DiffArgsSchema, location="query")
    @blp.response(200, schemas.DiffSchema)
    def get(self, args, dataset_id):
        """Compare two versions

        What changed from version ``from`` to version ``to`` of a tabular dataset: the
        columns added, removed and retyped; how many rows were added, removed, changed
        and unchanged; and up to 20 rows of each kind. With ``key``, rows are matched by
        those columns; without, the versions are compared as multisets of rows. Computed
        by DuckDB in a process of its own, within ``DIFF_TIMEOUT_SECONDS`` and the
        pipelines' memory limit. Any role."""
        dataset = readable(services.get_dataset(dataset_id))
        old = versions.get_version(dataset.id, args["from_"])
        new = versions.get_version(dataset.id, args["to"])
        return diffs.diff_versions(dataset, old, new, args["key"], current_app.config)
