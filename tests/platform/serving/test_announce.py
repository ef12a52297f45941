"""The start-up announcement's address and its once-only telling
(datahub/platform/serving/announce.py)."""

import pytest

from datahub.platform.serving.announce import Announcement, app_url


@pytest.mark.parametrize(
    ("bind", "url"),
    [
        ("127.0.0.1:8000", "http://localhost:8000/app/"),
        ("0.0.0.0:8080", "http://localhost:8080/app/"),
        ("[::]:8000", "http://localhost:8000/app/"),
        ("data.example.org:80", "http://data.example.org:80/app/"),
        ("unix:/run/datahub.sock", None),
    ],
)
def test_the_app_url_of_a_bind(bind, url):
    assert app_url(bind) == url


def test_a_password_is_told_once_even_when_the_server_never_answers():
    told = []
    announcement = Announcement("127.0.0.1:1", ["the password"], told.append, patience=0.3)
    announcement.start()
    announcement.tell_now()  # the server stops first
    announcement.tell_now()
    assert told == [["the password"]]


def test_a_unix_socket_is_told_at_once():
    told = []
    Announcement("unix:/run/datahub.sock", ["the password"], told.append).start()
    assert told == [["the password"]]
