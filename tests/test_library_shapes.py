"""What datahub relies on in other libraries' undocumented parts, one section per library
module (docs/contributing/internals.rst). Each test fails when an upgrade changes that shape,
naming the setting that turns the use off, so the upgrade is a visible decision (the
pinned versions are in requirements.txt). gunicorn's are in
tests/platform/serving/test_gunicorn_shape.py."""

import dataclasses
import inspect
import re

import flask
import flask.globals
import flask_limiter
import flask_smorest
import pytest
import sqlalchemy as sa
from apispec import BasePlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from flask.ctx import RequestContext
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Rule

from datahub import create_app
from datahub.app.flask_app import request_context
from datahub.web.ratelimit import _NothingChecked
from datahub.web.url_rules import CachedBuilderRule


def relied_on(condition, what, setting):
    assert condition, (
        f"{what} changed: set {setting}=false (docs/contributing/internals.rst) until "
        "the module that relies on it is brought up to date"
    )


def parameters(function):
    return list(inspect.signature(function).parameters)


def names_used(function):
    return set(inspect.unwrap(function).__code__.co_names)


# -- Flask (datahub/app/flask_app.py) -------------------------------------------------------


def test_the_request_context_is_an_object_with_a_dict(app):
    relied_on(
        request_context is not None and hasattr(flask.globals, "request_ctx"),
        "flask.globals.request_ctx (a LocalProxy)",
        "RATELIMIT_FAST_PATH",
    )
    with app.test_request_context("/"):
        context = request_context()
        relied_on(
            type(context) is RequestContext and isinstance(vars(context), dict),
            "Flask's RequestContext",
            "RATELIMIT_FAST_PATH",
        )


def test_without_flask_s_request_context_the_limiter_keeps_to_its_public_api(
    monkeypatch, base_config
):
    """A Flask that has no ``request_ctx``, or deprecates it (3.2): request_context is None,
    and the fast path stays off whatever RATELIMIT_FAST_PATH says."""
    from datahub.app.extensions import limiter
    from datahub.web import ratelimit

    monkeypatch.setattr(ratelimit, "request_context", None)
    app = create_app({**base_config, "RATELIMIT_FAST_PATH": True})
    assert limiter.fast_path is False
    assert app.test_client().get("/healthz").status_code == 200


# -- Flask-Limiter (datahub/web/ratelimit.py) -----------------------------------------------


def test_the_limiter_hooks_the_fast_path_replaces():
    Limiter = flask_limiter.Limiter
    relied_on(
        parameters(Limiter._check_request_limit) == ["self", "callable_name", "in_middleware"],
        "Flask-Limiter's Limiter._check_request_limit",
        "RATELIMIT_FAST_PATH",
    )
    relied_on(
        "_check_request_limit" in names_used(Limiter.init_app),
        "Flask-Limiter's before-request hook",
        "RATELIMIT_FAST_PATH",
    )
    relied_on(
        isinstance(inspect.getattr_static(Limiter, "context"), property)
        and "_limiter_request_context" in names_used(Limiter.context.fget),
        "Flask-Limiter's per-request state (Limiter.context)",
        "RATELIMIT_FAST_PATH",
    )


def test_the_limiter_state_the_stand_in_replaces():
    from flask_limiter._extension import LimiterContext

    fields = {field.name for field in dataclasses.fields(LimiterContext)}
    stand_in = {name for name in dir(_NothingChecked) if not name.startswith("_")}
    relied_on(
        fields | {"reset"} == stand_in, "Flask-Limiter's LimiterContext", "RATELIMIT_FAST_PATH"
    )


def test_the_request_wide_limits_the_fast_path_reads(app):
    from datahub.app.extensions import limiter

    with app.app_context():
        manager = limiter.limit_manager
        relied_on(
            isinstance(manager._blueprint_limits, dict)
            and isinstance(limiter._meta_limits, list)
            and isinstance(limiter._in_memory_fallback, list)
            and hasattr(manager, "application_limits")
            and hasattr(manager, "default_limits"),
            "Where Flask-Limiter keeps request-wide limits",
            "RATELIMIT_FAST_PATH",
        )
    # The request-wide limits are the ones resolved with in_middleware.
    relied_on(
        "in_middleware" in parameters(type(manager).resolve_limits),
        "Flask-Limiter's LimitManager.resolve_limits",
        "RATELIMIT_FAST_PATH",
    )


def test_the_settings_a_rebinding_resets():
    """Reset when the limiter is bound to a second app (only tests do that: no setting)."""
    kept = {
        "_strategy",
        "_swallow_errors",
        "_fail_on_first_breach",
        "_key_prefix",
        "_storage_options",
        "_storage_dead",
        "_in_memory_fallback_enabled",
    }
    fresh = flask_limiter.Limiter(key_func=lambda: "x")
    assert kept <= set(vars(fresh)), "Flask-Limiter's settings moved: update Limiter.init_app"
    binding = names_used(flask_limiter.Limiter.init_app) | names_used(
        flask_limiter.Limiter._Limiter__configure_fallbacks
    )
    assert kept - {"_storage_dead"} <= binding, (
        "Flask-Limiter no longer reads these in init_app: update Limiter.init_app"
    )


def test_the_flag_of_a_lost_store_is_set_and_read_where_the_watch_expects():
    """datahub.web.ratelimit watches ``_storage_dead`` (a property of its subclass) to log,
    count and end the fall back to memory. No setting: if Flask-Limiter stops using the
    flag, the watch sees nothing and the library's own checks (up to 32 s apart) remain."""
    from datahub.app.extensions import limiter

    assert "_storage_dead" in names_used(flask_limiter.Limiter._check_request_limit)
    assert "_storage_dead" in names_used(flask_limiter.Limiter.limiter.fget)
    assert "_storage" in names_used(flask_limiter.Limiter.storage.fget)
    assert isinstance(inspect.getattr_static(type(limiter), "_storage_dead"), property)


# -- SQLAlchemy and the DB-API (datahub/platform/database.py) ------------------------------------


def test_the_pool_hands_out_detachable_driver_connections(app):
    from datahub.app.extensions import db

    with app.app_context():
        pooled = db.engine.raw_connection()
        try:
            relied_on(
                pooled.driver_connection is not None and callable(pooled.detach),
                "SQLAlchemy's pooled connection (driver_connection, detach)",
                "AUTH_LOOKUP_DIRECT_CONNECTIONS",
            )
            error = db.engine.dialect.loaded_dbapi.Error
        finally:
            pooled.close()
    relied_on(
        issubclass(error, Exception), "Dialect.loaded_dbapi", "AUTH_LOOKUP_DIRECT_CONNECTIONS"
    )
    relied_on(
        parameters(sa.exc.DBAPIError.instance)[:4]
        == ["statement", "params", "orig", "dbapi_base_err"],
        "sqlalchemy.exc.DBAPIError.instance",
        "AUTH_LOOKUP_DIRECT_CONNECTIONS",
    )


def test_psycopg_connections_switch_to_autocommit():
    import psycopg

    relied_on(
        isinstance(inspect.getattr_static(psycopg.Connection, "autocommit"), property),
        "psycopg's Connection.autocommit",
        "AUTH_LOOKUP_DIRECT_CONNECTIONS",
    )


@pytest.mark.parametrize(
    "dialect, positional",
    [
        ("sqlalchemy.dialects.sqlite.pysqlite", True),
        ("sqlalchemy.dialects.postgresql.psycopg", False),
    ],
)
def test_the_driver_sql_of_a_statement(dialect, positional):
    import importlib

    from datahub.platform.database import driver_sql

    module = importlib.import_module(dialect)
    statement = sa.select(sa.literal_column("1")).where(sa.bindparam("b") == sa.bindparam("a"))
    sql, names = driver_sql(statement, module.dialect())
    expected = (("b", "a"), "?") if positional else (None, "%(b)s")
    relied_on(
        names == expected[0] and expected[1] in sql,
        "SQLAlchemy's compiled.positional / positiontup",
        "AUTH_LOOKUP_DIRECT_CONNECTIONS",
    )


# -- SQLAlchemy (datahub/identity/auth_cache.py) ---------------------------------------------


def test_an_update_statement_keeps_the_columns_it_sets():
    """The auth cache tells a personal access token's last use (which changes no kept
    answer) from other UPDATEs by the columns in ``statement._values``. No setting: without
    it every such UPDATE drops the token's kept answers (correct, kept less)."""
    from datahub.identity.auth_cache import _bookkeeping_only
    from datahub.identity.models import PersonalAccessToken

    last_use = sa.update(PersonalAccessToken).values(last_used_at=sa.bindparam("minute"))
    renamed = sa.update(PersonalAccessToken).values(name="other")
    assert {column.key for column in last_use._values} == {"last_used_at"}, (
        "SQLAlchemy's UpdateBase._values changed: update auth_cache._bookkeeping_only"
    )
    assert _bookkeeping_only(last_use) and not _bookkeeping_only(renamed)


# -- flask-smorest and webargs (datahub/web/api.py) ----------------------------------------


def test_smorest_documents_through_the_blueprint_and_serves_the_spec():
    """The deferred document (DeferredSpec): smorest's Api documents a blueprint by
    calling its ``register_views_in_doc`` and serves ``self.spec.to_dict()``."""
    relied_on(
        parameters(flask_smorest.Blueprint.register_views_in_doc)
        == ["self", "api", "app", "spec", "name", "parameters"]
        and "register_views_in_doc" in names_used(flask_smorest.Api.register_blueprint)
        and {"spec", "to_dict"} <= names_used(flask_smorest.Api._openapi_json),
        "flask-smorest's blueprint documentation",
        "OPENAPI_DEFERRED",
    )


def test_the_public_hooks_api_py_uses(app):
    """No setting: these are documented. A failure means datahub/web/api.py needs updating."""
    from datahub.web.error_handlers import handle_exception

    assert parameters(FlaskParser.load_json) == ["self", "req", "schema"]
    assert FlaskParser.__location_map__["json"] == "load_json"
    assert parameters(flask_smorest.Api.register_converter) == ["self", "converter", "func"]
    # The document: spec_kwargs (a marshmallow plugin of our own per app, and its
    # attribute functions), the default error response's name, apispec's plugin hook.
    assert "spec_kwargs" in parameters(flask_smorest.Api.init_app)
    assert flask_smorest.Api.DEFAULT_ERROR_RESPONSE_NAME == "DEFAULT_ERROR"
    assert parameters(OpenAPIConverter.add_attribute_function) == ["self", "func"]
    assert parameters(BasePlugin.operation_helper) == ["self", "path", "operations", "kwargs"]
    # smorest registers its own HTTPException handler in init_app; ours, registered
    # later, takes its place.
    assert app.error_handler_spec[None][None][HTTPException] is handle_exception


# -- Werkzeug (datahub/web/url_rules.py) ------------------------------------------------------


def test_a_rule_compiles_its_builders_from_its_parts():
    """CachedBuilderRule: ``Rule.compile`` gets its two URL builders from
    ``_compile_builder(append_unknown)``, which reads the parsed parts ``_trace``, the
    defaults and their converters (``_converters``), and binds nothing else."""
    source = inspect.getsource(Rule._compile_builder)
    relied_on(
        parameters(Rule._compile_builder) == ["self", "append_unknown"]
        and "_compile_builder" in names_used(Rule.compile)
        and {"_trace", "defaults", "_converters"} <= set(re.findall(r"self\.(\w+)", source))
        and set(re.findall(r"self\.(\w+)", source))
        <= {"_trace", "defaults", "_converters", "rule", "_get_func_code"},
        "Werkzeug's Rule._compile_builder",
        "ROUTING_BUILDER_CACHE",
    )


def test_every_rule_builds_the_same_urls_with_cached_builders(base_config):
    """Each of the app's rules, in a second app (its builders then come from the cache),
    builds the same URLs as Werkzeug's own builders, with and without extra arguments (a
    query string)."""
    cached = [create_app({**base_config, "ROUTING_BUILDER_CACHE": True}) for _ in range(2)][-1]
    plain = create_app({**base_config, "ROUTING_BUILDER_CACHE": False})
    cached_rules = {(rule.endpoint, rule.rule): rule for rule in cached.url_map.iter_rules()}
    compared = 0
    for rule in plain.url_map.iter_rules():
        again = cached_rules[rule.endpoint, rule.rule]
        assert type(rule) is Rule and type(again) in (Rule, CachedBuilderRule)
        values = {name: ARGUMENTS[type(c).__name__] for name, c in rule._converters.items()}
        for extra in ({}, {"q": "x y&z", "page": 2}):
            expected = rule.build({**values, **extra}, append_unknown=True)
            assert again.build({**values, **extra}, append_unknown=True) == expected
            assert again.build(values, append_unknown=False) == rule.build(values, False)
        compared += type(again) is CachedBuilderRule
    assert compared > 60


ARGUMENTS = {"IdConverter": 7, "TextConverter": "a b", "PathConverter": "a b/c.csv"}
