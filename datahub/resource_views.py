"""The list, create, get, change and delete views of a named, owned resource (datasets,
collections, pipelines): each feature states its words and where 404s can come from."""
from flask import url_for
from flask.views import MethodView

from datahub.api import BEARER, error_responses
from datahub.identity import permissions
from datahub.identity.guard import current_user


def changeable(row):
    """``row``, once the caller may change it (else 403)."""
    permissions.require_change(current_user, row)
    return row


def _doc(text):
    """The view's docstring, which flask-smorest makes the operation's summary."""

    def decorator(view):
        view.__doc__ = text
        return view

    return decorator


def owned_named_views(blp, kind, services, schemas, *, filters, patch_doc, delete_doc,
                      deleted, create_errors):
    """Route ``/`` (list, create) and ``/<id:{kind}_id>`` (get, change, delete) on ``blp``,
    as the endpoints ``{Kind}s`` and ``{Kind}ById``.

    ``services`` and ``schemas`` are the feature's modules: ``list_{kind}s``,
    ``create_{kind}``, ``get_{kind}``, ``update_{kind}``, ``delete_{kind}`` (looked up at
    each request) and ``{Kind}ListArgsSchema``, ``{Kind}PageSchema``, ``{Kind}CreateSchema``,
    ``{Kind}Schema``, ``{Kind}UpdateSchema``. ``filters`` completes the list's summary;
    ``patch_doc`` and ``delete_doc`` are those operations' summaries, ``deleted`` the 204's
    words.
    """
    id_arg, title = f"{kind}_id", kind.capitalize()
    item_schema = getattr(schemas, f"{title}Schema")
    location = {"description": f"The new {kind}'s URL", "schema": {"type": "string"}}

    def lookup(path, for_update=False):
        return getattr(services, f"get_{kind}")(path[id_arg], for_update=for_update)

    @blp.route("/", strict_slashes=False, endpoint=f"{title}s")
    class Items(MethodView):
        @blp.doc(security=BEARER)
        @blp.arguments(getattr(schemas, f"{title}ListArgsSchema"), location="query")
        @blp.response(200, getattr(schemas, f"{title}PageSchema"))
        @error_responses(blp, 401, 403, 422)
        @_doc(f"List {kind}s, oldest first, filtered by {filters}.")
        def get(self, args):
            permissions.require_read(current_user)
            return getattr(services, f"list_{kind}s")(args, current_user)

        @blp.doc(security=BEARER)
        @permissions.before_body(lambda: permissions.require_create(current_user))
        @blp.arguments(getattr(schemas, f"{title}CreateSchema"))
        @blp.response(201, item_schema, headers={"Location": location})
        @error_responses(blp, *create_errors)
        @_doc(f"Create a {kind} (editors and admins); the caller owns it.")
        def post(self, values):
            row = getattr(services, f"create_{kind}")(current_user, values)
            return row, 201, {"Location": url_for(f"{blp.name}.{title}ById", **{id_arg: row.id})}

    @blp.route(f"/<id:{id_arg}>", endpoint=f"{title}ById")
    class Item(MethodView):
        @blp.doc(security=BEARER)
        @blp.response(200, item_schema)
        @error_responses(blp, 401, 403, 404, 422)
        @_doc(f"One {kind}.")
        def get(self, **path):
            permissions.require_read(current_user)
            return lookup(path)

        @blp.doc(security=BEARER)
        @permissions.before_body(lambda **path: changeable(lookup(path)))
        @blp.arguments(getattr(schemas, f"{title}UpdateSchema"))
        @blp.response(200, item_schema)
        @error_responses(blp, 400, 401, 403, 404, 409, 422)
        @_doc(patch_doc)
        def patch(self, values, **path):
            return getattr(services, f"update_{kind}")(lookup(path), values)

        @blp.doc(security=BEARER)
        @blp.response(204, description=deleted)
        @error_responses(blp, 401, 403, 404, 422)
        @_doc(delete_doc)
        def delete(self, **path):
            # Locked, so an upload finishing meanwhile cannot attach a file to a deleted row.
            getattr(services, f"delete_{kind}")(changeable(lookup(path, for_update=True)))
