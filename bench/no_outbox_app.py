"""bench.events' baseline: the service with its outbox's ``record`` made a no-op, so that a
change writes no event (served by gunicorn beside the real one)."""

from datahub.events import outbox

outbox.record = lambda *args, **kwargs: None

from wsgi import app  # noqa: E402, F401  (what gunicorn serves)
