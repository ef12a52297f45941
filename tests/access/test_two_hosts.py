"""Revocation on every host: two apps on one database (and, with the auth cache on, one
invalidation channel) stand for two hosts. A grant revoked, a visibility narrowed or a
group member removed on host A is refused by host B at its very next request, though B
keeps the caller's login lookups (access is never cached)."""

from tests.access.conftest import grant, make_group
from tests.identity.auth.test_auth_cache import (  # noqa: F401 (fixtures)
    _stop_host_a,
    config_overrides,
    host_b,
    redis_url,
    shared_channel,
    wait_live,
)
from tests.resources import actors, create_dataset  # noqa: F401 (fixture)

NOT_FOUND = (404, {"detail": "Dataset not found"})


def status(response):
    return response.status_code, (response.get_json() if response.status_code != 200 else None)


def test_revocations_are_seen_by_the_other_host_at_once(app, host_b, actors):
    a, b = app.test_client(), host_b.test_client()
    owner, viewer = actors["editor"], actors["viewer"]
    wait_live(app), wait_live(host_b)
    dataset = create_dataset(a, owner.headers, "shared", visibility="private")
    url = f"/api/v1/datasets/{dataset['id']}"

    made = grant(a, owner.headers, "datasets", dataset["id"], f"user:{viewer.id}", "read")
    assert status(b.get(url, headers=viewer.headers)) == (200, None)
    assert a.delete(f"{url}/grants/{made['id']}", headers=owner.headers).status_code == 204
    assert status(b.get(url, headers=viewer.headers)) == NOT_FOUND

    group_id = make_group(app, "readers", viewer.id)
    grant(a, owner.headers, "datasets", dataset["id"], f"group:{group_id}", "read")
    assert status(b.get(url, headers=viewer.headers)) == (200, None)
    admin = actors["admin"]
    removed = a.delete(f"/api/v1/groups/{group_id}/members/{viewer.id}", headers=admin.headers)
    assert removed.status_code == 200
    assert status(b.get(url, headers=viewer.headers)) == NOT_FOUND

    open_ = create_dataset(a, owner.headers, "open")
    assert status(b.get(f"/api/v1/datasets/{open_['id']}", headers=viewer.headers)) == (200, None)
    narrowed = a.patch(
        f"/api/v1/datasets/{open_['id']}", json={"visibility": "private"}, headers=owner.headers
    )
    assert narrowed.status_code == 200
    assert status(b.get(f"/api/v1/datasets/{open_['id']}", headers=viewer.headers)) == NOT_FOUND
