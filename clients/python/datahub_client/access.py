"""Who may see and change what: the visibility and the grants of datasets, collections and
pipelines, personal access tokens, and groups. Mixed into ``Client``; every method returns
the decoded JSON answer.

``kind`` is ``"dataset"``, ``"collection"`` or ``"pipeline"``. A grant's ``principal`` is
``"user:<uuid>"``, ``"user:<email>"`` (kept as the user's id) or ``"group:<id>"``
(``user_principal`` and ``group_principal`` make them); its ``permission`` ``"read"`` or ``"write"``. Only the owner (an editor) or an
admin sees and changes a row's grants and visibility."""

from urllib.parse import quote

API = "/api/v1"
KINDS = ("dataset", "collection", "pipeline")
VISIBILITIES = ("private", "internal")
PERMISSIONS = ("read", "write")
SCOPES = {"read": ["read"], "write": ["read", "write"]}


def user_principal(user_id):
    return f"user:{user_id}"


def group_principal(group_id):
    return f"group:{int(group_id)}"


def _row_path(kind, resource_id):
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return f"{API}/{kind}s/{int(resource_id)}"


def _pages(fetch):
    """Every item of a list envelope, page after page: ``fetch(limit, offset)``."""
    offset = 0
    while True:
        page = fetch(100, offset)
        yield from page["items"]
        offset += len(page["items"])
        if not page["items"] or offset >= page["total"]:
            return


class AccessMixin:
    """Needs ``self._json(method, path, **kwargs)`` and ``self.request(...)``."""

    # -- visibility ---------------------------------------------------------------------

    def visibility_set(self, kind, resource_id, visibility):
        """Make a dataset, collection or pipeline ``private`` (its owner, grantees and
        admins) or ``internal`` (every user); answers the changed row."""
        return self._json(
            "PATCH", _row_path(kind, resource_id), json_body={"visibility": visibility}
        )

    def dataset_set_visibility(self, dataset_id, visibility):
        return self.visibility_set("dataset", dataset_id, visibility)

    def collection_set_visibility(self, collection_id, visibility):
        return self.visibility_set("collection", collection_id, visibility)

    def pipeline_set_visibility(self, pipeline_id, visibility):
        return self.visibility_set("pipeline", pipeline_id, visibility)

    # -- grants -------------------------------------------------------------------------

    def grants_list(self, kind, resource_id, *, limit=20, offset=0):
        """One page of the row's grants: ``{"items", "total", "limit", "offset"}``, each
        ``{"id", "principal", "permission", "created_at"}``."""
        return self._json(
            "GET",
            _row_path(kind, resource_id) + "/grants",
            params={"limit": limit, "offset": offset},
        )

    def grants_iter(self, kind, resource_id):
        """Every grant of the row, page after page."""
        return _pages(
            lambda limit, offset: self.grants_list(kind, resource_id, limit=limit, offset=offset)
        )

    def grant_add(self, kind, resource_id, principal, permission="read"):
        """Let ``principal`` (``user:<uuid>``, ``user:<email>`` or ``group:<id>``) read, or
        read and change (``write``), the row (POST, never retried). 409 if it holds a grant
        already; 422 at ``principal`` if there is no such user or group."""
        return self._json(
            "POST",
            _row_path(kind, resource_id) + "/grants",
            json_body={"principal": principal, "permission": permission},
        )

    def grant_remove(self, kind, resource_id, grant_id):
        """Revoke a grant: the grantee's next request is refused."""
        self.request("DELETE", _row_path(kind, resource_id) + f"/grants/{int(grant_id)}")

    # -- personal access tokens ---------------------------------------------------------

    def tokens_create(self, name, *, scopes=("read", "write"), expires_in_days=None):
        """A new personal access token (``dhp_...``, in ``token``: shown this once, never
        again). ``scopes``: ``["read"]`` (GET only) or ``["read", "write"]``;
        ``expires_in_days``: 1 to 365 (the service's default: 30). Needs a login session:
        a client built with a token gets 403."""
        body = {"name": name, "scopes": list(scopes)}
        if expires_in_days is not None:
            body["expires_in_days"] = int(expires_in_days)
        return self._json("POST", f"{API}/auth/tokens", json_body=body)

    def tokens_list(self, *, limit=20, offset=0):
        """One page of the user's tokens (never their secrets)."""
        return self._json("GET", f"{API}/auth/tokens", params={"limit": limit, "offset": offset})

    def tokens_iter(self):
        return _pages(lambda limit, offset: self.tokens_list(limit=limit, offset=offset))

    def token_revoke(self, token_id):
        """Revoke a token: requests sent with it are refused from now on."""
        self.request("DELETE", f"{API}/auth/tokens/{quote(str(token_id), safe='')}")

    # -- groups and users ---------------------------------------------------------------

    def groups_list(self, *, limit=20, offset=0):
        """One page of groups (any user): ``{"id", "name", "description", "source",
        "member_ids", "created_at"}`` each."""
        return self._json("GET", f"{API}/groups/", params={"limit": limit, "offset": offset})

    def groups_iter(self):
        return _pages(lambda limit, offset: self.groups_list(limit=limit, offset=offset))

    def users_find(self, q=None, *, ids=None, limit=20, offset=0):
        """Active users (any signed-in user may ask) whose name or email contains ``q``
        (those that start with it first), or whose id is in ``ids``: one page of at most
        20 ``{"id", "name", "email"}``."""
        params = {"limit": limit, "offset": offset}
        if q is not None:
            params["q"] = q
        if ids is not None:
            params["ids"] = ",".join(ids)
        return self._json("GET", f"{API}/users/directory", params=params)

    def users_list(self, *, q=None, limit=20, offset=0):
        """One page of users, ``q`` in their email or name (admins only)."""
        params = {"limit": limit, "offset": offset}
        if q is not None:
            params["q"] = q
        return self._json("GET", f"{API}/users/", params=params)
