"""WSGI entry point: ``gunicorn wsgi:app`` (gunicorn.conf.py names it already)."""

from datahub import create_app

app = create_app()
