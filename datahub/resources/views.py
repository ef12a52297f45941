"""The list, create, get, change and delete views of a named, owned resource (datasets,
collections, pipelines): each feature states its words and where 404s can come from."""
from flask import url_for
from flask.views import MethodView

from datahub.identity import permissions
from datahub.identity.guard import current_user
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, operation


def changeable(row):
    """``row``, once the caller may change it (else 403)."""
    permissions.require_change(current_user, row)
    return row


def _doc(summary, description):
    """The view's docstring, which flask-smorest makes the operation's summary (the first
    line) and description (the rest)."""

    def decorator(view):
        view.__doc__ = f"{summary}\n\n{description}"
        return view

    return decorator


def owned_named_views(blp, kind, services, schemas, *, filters, patch_doc, delete_doc,
                      deleted, create_errors):
    """Route ``/`` (list, create) and ``/<id:{kind}_id>`` (get, change, delete) on ``blp``,
    as the endpoints ``{Kind}s`` and ``{Kind}ById``, the operations ``list_{kind}s``,
    ``create_{kind}``, ``get_{kind}``, ``update_{kind}`` and ``delete_{kind}``.

    ``services`` and ``schemas`` are the feature's modules: ``list_{kind}s``,
    ``create_{kind}``, ``get_{kind}``, ``update_{kind}``, ``delete_{kind}`` (looked up at
    each request) and ``{Kind}ListArgsSchema``, ``{Kind}PageSchema``, ``{Kind}CreateSchema``,
    ``{Kind}Schema``, ``{Kind}UpdateSchema``. ``filters`` completes the list's description;
    ``patch_doc`` and ``delete_doc`` are those operations' (summary, description), ``deleted``
    the 204's words; ``create_errors`` the create's error codes besides the body's own.
    """
    id_arg, title = f"{kind}_id", kind.capitalize()
    item_schema = getattr(schemas, f"{title}Schema")
    not_found = (404, f"`{title} not found`")
    location = {"Location": "Location"}

    def lookup(path, for_update=False):
        return getattr(services, f"get_{kind}")(path[id_arg], for_update=for_update)

    @blp.route("/", strict_slashes=False, endpoint=f"{title}s")
    class Items(MethodView):
        @operation(blp, f"list_{kind}s", 401, 403, 422, security=BEARER)
        @blp.arguments(getattr(schemas, f"{title}ListArgsSchema"), location="query")
        @blp.response(200, getattr(schemas, f"{title}PageSchema"))
        @_doc(f"List {kind}s",
              f"One page of {kind}s, oldest first, filtered by {filters} (any role).")
        def get(self, args):
            permissions.require_read(current_user)
            return getattr(services, f"list_{kind}s")(args, current_user)

        @operation(blp, f"create_{kind}", *JSON_BODY_ERRORS, *create_errors, security=BEARER)
        @permissions.before_body(lambda: permissions.require_create(current_user))
        @blp.arguments(getattr(schemas, f"{title}CreateSchema"))
        @blp.response(201, item_schema, headers=location)
        @_doc(f"Create a {kind}",
              f"Editors and admins; the caller owns the new {kind}, whose URL is in "
              "`Location`. 409 `Name already exists` when another has the name.")
        def post(self, values):
            row = getattr(services, f"create_{kind}")(current_user, values)
            return row, 201, {"Location": url_for(f"{blp.name}.{title}ById", **{id_arg: row.id})}

    @blp.route(f"/<id:{id_arg}>", endpoint=f"{title}ById")
    class Item(MethodView):
        @operation(blp, f"get_{kind}", 401, 403, not_found, 422, security=BEARER)
        @blp.response(200, item_schema)
        @_doc(f"Get a {kind}", f"One {kind} (any role).")
        def get(self, **path):
            permissions.require_read(current_user)
            return lookup(path)

        @operation(blp, f"update_{kind}", *JSON_BODY_ERRORS, 401, 403, not_found, 409,
                   security=BEARER)
        @permissions.before_body(lambda **path: changeable(lookup(path)))
        @blp.arguments(getattr(schemas, f"{title}UpdateSchema"))
        @blp.response(200, item_schema)
        @_doc(*patch_doc)
        def patch(self, values, **path):
            return getattr(services, f"update_{kind}")(lookup(path), values)

        @operation(blp, f"delete_{kind}", 401, 403, not_found, 422, security=BEARER)
        @blp.response(204, description=deleted)
        @_doc(*delete_doc)
        def delete(self, **path):
            # Locked, so an upload finishing meanwhile cannot attach a file to a deleted row.
            getattr(services, f"delete_{kind}")(changeable(lookup(path, for_update=True)))
