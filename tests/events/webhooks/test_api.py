"""The webhooks API's answers: who may use it, validation, the addresses refused, and
another user's webhooks not found."""

import pytest

from tests.events.webhooks.helpers import WEBHOOKS, create_webhook
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)

PUBLIC = "https://93.184.215.14/hooks"


def url_error(response):
    assert response.status_code == 422, response.get_json()
    [error] = response.get_json()["detail"]
    assert (error["loc"], error["type"]) == (["body", "url"], "value_error.url.refused")
    return error["msg"]


@pytest.mark.parametrize(
    "url, message",
    [
        ("http://93.184.215.14/hooks", "URL must be https"),
        ("ftp://93.184.215.14/hooks", "URL must be https"),
        ("https://user:secret@93.184.215.14/", "URL must not hold a user name or password"),
        ("https://127.0.0.1/hooks", "URL resolves to a private, loopback or link-local address"),
        ("https://localhost/hooks", "URL resolves to a private, loopback or link-local address"),
        ("https://10.1.2.3/hooks", "URL resolves to a private, loopback or link-local address"),
        ("https://192.168.0.7/", "URL resolves to a private, loopback or link-local address"),
        (
            "https://169.254.169.254/latest/meta-data",
            "URL resolves to a private, loopback or link-local address",
        ),
        ("https://[::1]/hooks", "URL resolves to a private, loopback or link-local address"),
        (
            "https://[::ffff:127.0.0.1]/",
            "URL resolves to a private, loopback or link-local address",
        ),
        ("https://100.64.0.1/", "URL resolves to a private, loopback or link-local address"),
        # IPv6 that wraps a refused IPv4 address: 6to4 (127.0.0.1, 10.0.0.1), NAT64,
        # local-use NAT64, Teredo (its client 127.0.0.1), IPv4-compatible, IPv4-mapped
        *(
            (f"https://[{address}]/", "URL resolves to a private, loopback or link-local address")
            for address in (
                "2002:7f00:1::",
                "2002:a00:1::1",
                "64:ff9b::7f00:1",
                "64:ff9b:1::a9fe:a9fe",
                "2001:0:4136:e378:8000:63bf:80ff:fffe",
                "::127.0.0.1",
                "::ffff:a9fe:a9fe",
            )
        ),
        ("https://0.0.0.0/", "URL resolves to a private, loopback or link-local address"),
        ("https:///nohost", "URL has no host"),
        ("https://[zz/", "URL not a valid URL"),
    ],
)
def test_unsafe_addresses_are_refused(client, actors, url, message):
    response = client.post(WEBHOOKS, json={"url": url}, headers=actors["editor"].headers)
    assert url_error(response) == message


def test_the_secret_is_shown_once_and_the_webhook_is_its_owner_s(client, actors):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    response = client.post(WEBHOOKS, json={"url": PUBLIC}, headers=editor)
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    webhook = response.get_json()
    assert response.headers["Location"].endswith(f"{WEBHOOKS}{webhook['id']}")
    assert set(webhook) == {
        "id",
        "url",
        "event_types",
        "dataset_id",
        "active",
        "failures",
        "disabled_reason",
        "created_at",
        "secret",
    }
    assert (webhook["event_types"], webhook["dataset_id"], webhook["active"]) == ([], None, True)
    listed = client.get(WEBHOOKS, headers=editor).get_json()
    assert [w["id"] for w in listed["items"]] == [webhook["id"]] and "secret" not in listed[
        "items"
    ][0]
    assert client.get(WEBHOOKS, headers=other).get_json()["items"] == []
    for method in ("get", "patch", "delete"):
        answer = getattr(client, method)(f"{WEBHOOKS}{webhook['id']}", json={}, headers=other)
        assert (answer.status_code, answer.get_json()) == (404, {"detail": "Webhook not found"})
    gone = client.delete(f"{WEBHOOKS}{webhook['id']}", headers=editor)
    assert gone.status_code == 204
    assert client.get(f"{WEBHOOKS}{webhook['id']}", headers=editor).status_code == 404


def test_viewers_have_no_webhooks(client, actors):
    viewer = actors["viewer"].headers
    assert client.get(WEBHOOKS, headers=viewer).status_code == 403
    response = client.post(WEBHOOKS, json={"url": PUBLIC}, headers=viewer)
    assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})


def test_a_dataset_filter_must_be_readable(client, actors):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    hidden = create_dataset(client, other, "hidden", visibility="private")
    for dataset_id in (hidden["id"], 999999):
        response = client.post(
            WEBHOOKS, json={"url": PUBLIC, "dataset_id": dataset_id}, headers=editor
        )
        assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    shown = create_dataset(client, other, "shown")
    assert create_webhook(client, editor, dataset_id=shown["id"])["dataset_id"] == shown["id"]


@pytest.mark.parametrize(
    "body, loc",
    [
        ({}, ["body", "url"]),
        ({"url": ""}, ["body", "url"]),
        ({"url": PUBLIC, "event_types": ["datahub.nothing"]}, ["body", "event_types", 0]),
        ({"url": PUBLIC, "event_types": "datahub.dataset.created"}, ["body", "event_types"]),
        ({"url": PUBLIC, "dataset_id": 0}, ["body", "dataset_id"]),
        ({"url": PUBLIC, "active": "yes"}, ["body", "active"]),
        ({"url": PUBLIC, "secret": "whsec_mine"}, ["body", "secret"]),
    ],
)
def test_bad_bodies_are_422(client, actors, body, loc):
    response = client.post(WEBHOOKS, json=body, headers=actors["editor"].headers)
    assert response.status_code == 422, response.get_json()
    assert [error["loc"] for error in response.get_json()["detail"]] == [loc]
