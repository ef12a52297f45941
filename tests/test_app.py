"""The app factory: configuration layering and the signing secret."""

import os
import stat

import pytest

from datahub import create_app
from datahub.platform.errors import ConfigurationError


@pytest.fixture
def instance(tmp_path, monkeypatch, database_url):
    monkeypatch.setenv("DATAHUB_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("DATAHUB_SQLALCHEMY_DATABASE_URI", database_url)
    for key in list(os.environ):
        if key.startswith("DATAHUB_") and key not in {
            "DATAHUB_INSTANCE_PATH",
            "DATAHUB_SQLALCHEMY_DATABASE_URI",
        }:
            monkeypatch.delenv(key)
    return tmp_path


def test_defaults(instance):
    app = create_app()
    assert app.instance_path == str(instance)
    assert app.config["BCRYPT_ROUNDS"] == 12
    assert app.config["JWT_ACCESS_TOKEN_EXPIRES"].total_seconds() == 1800
    assert app.config["JWT_REFRESH_TOKEN_EXPIRES"].total_seconds() == 604800
    assert app.config["JWT_COOKIE_SECURE"] is True
    assert app.config["CORS_ORIGINS"] == []
    assert app.config["STORAGE_PATH"] == str(instance / "storage")


def test_sqlite_in_the_instance_folder_is_the_default(instance, monkeypatch):
    monkeypatch.delenv("DATAHUB_SQLALCHEMY_DATABASE_URI")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{instance / 'datahub.sqlite'}"


def test_layering_instance_file_then_env_then_test_config(instance, monkeypatch):
    (instance / "config.py").write_text(
        "BCRYPT_ROUNDS = 5\nMAX_CONTENT_LENGTH = 111\nADMIN_EMAIL = 'file@example.com'\n"
    )
    assert create_app().config["BCRYPT_ROUNDS"] == 5
    monkeypatch.setenv("DATAHUB_BCRYPT_ROUNDS", "6")
    monkeypatch.setenv("DATAHUB_CORS_ORIGINS", '["https://app.example.com"]')
    app = create_app()
    assert app.config["BCRYPT_ROUNDS"] == 6  # env (parsed as JSON) beats the file
    assert app.config["CORS_ORIGINS"] == ["https://app.example.com"]
    assert app.config["MAX_CONTENT_LENGTH"] == 111
    app = create_app({"BCRYPT_ROUNDS": 4})
    assert app.config["BCRYPT_ROUNDS"] == 4  # test_config beats env
    assert app.config["ADMIN_EMAIL"] == "file@example.com"


def test_postgres_urls_use_psycopg3(instance):
    app = create_app({"SQLALCHEMY_DATABASE_URI": "postgresql://u@h/db"})
    assert app.config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://u@h/db"


def test_a_secret_is_generated_once_and_kept_private(instance):
    first = create_app()
    secret_file = instance / "secret_key"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert len(first.config["JWT_SECRET_KEY"]) >= 32
    second = create_app()
    assert second.config["JWT_SECRET_KEY"] == first.config["JWT_SECRET_KEY"]
    assert second.config["SECRET_KEY"] == first.config["SECRET_KEY"]


def test_sessions_survive_a_restart(instance, migrated):
    """A token issued by one app instance is accepted by the next one (same instance folder)."""
    from flask_jwt_extended import create_access_token, decode_token

    with create_app().app_context():
        token = create_access_token(identity="someone")
    with create_app().app_context():
        assert decode_token(token)["sub"] == "someone"


@pytest.mark.parametrize("key", ["JWT_SECRET_KEY", "SECRET_KEY"])
def test_a_short_configured_secret_stops_start_up(instance, monkeypatch, key):
    monkeypatch.setenv(f"DATAHUB_{key}", "too-short")
    with pytest.raises(ConfigurationError, match=f"{key} is shorter than 32 bytes"):
        create_app()
    assert not (instance / "secret_key").exists()


def test_a_configured_secret_is_used_and_none_generated(instance, monkeypatch):
    monkeypatch.setenv("DATAHUB_JWT_SECRET_KEY", "s" * 32)
    monkeypatch.setenv("DATAHUB_SECRET_KEY", "t" * 32)
    app = create_app()
    assert app.config["JWT_SECRET_KEY"] == "s" * 32
    assert not (instance / "secret_key").exists()
