"""Search (the service's docs: "Search"). Mixed into ``Client``; every method returns
the decoded JSON answer.

    page = client.search("rainfall norway", type="dataset", sort="relevance")
    for item in page["items"]:
        print(item["type"], item["id"], item["name"], item["matched_columns"])
"""

API = "/api/v1"


def _query(**params):
    return {name: value for name, value in params.items() if value is not None}


class SearchMixin:
    """Needs ``self._json(method, path, **kwargs)``."""

    def search(
        self,
        q=None,
        *,
        type=None,
        tag=None,
        owner=None,
        format=None,
        visibility=None,
        collection=None,
        sort=None,
        limit=20,
        offset=0,
    ):
        """One page of what the caller may read that matches ``q`` (web-search syntax:
        words, ``"a phrase"``, ``-word``, ``or``), best first: ``{"items", "total",
        "limit", "offset", "facets"}``. ``type``: a kind or a list of them (``dataset``,
        ``collection``, ``pipeline``); ``sort``: ``relevance``, ``-updated_at``, ``name``
        or ``popular``."""
        if isinstance(type, (list, tuple)):
            type = ",".join(type)
        params = _query(
            q=q,
            type=type,
            tag=tag,
            owner=owner,
            format=format,
            visibility=visibility,
            collection=collection,
            sort=sort,
            limit=limit,
            offset=offset,
        )
        return self._json("GET", f"{API}/search", params=params)

    def search_iter(self, q=None, **filters):
        """Every result of :meth:`search`, page after page."""
        offset = 0
        while True:
            page = self.search(q, limit=100, offset=offset, **filters)
            yield from page["items"]
            offset += len(page["items"])
            if not page["items"] or offset >= page["total"]:
                return

    def search_suggest(self, q):
        """Up to ten names (datasets, collections, pipelines, tags, columns) containing
        ``q``: ``[{"type", "id", "name", "kind"}]``."""
        return self._json("GET", f"{API}/search/suggest", params={"q": q})["items"]
