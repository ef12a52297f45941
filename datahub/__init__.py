"""datahub: a data hub service. ``create_app`` is the application factory
(:mod:`datahub.app.factory`).

Nothing is imported at the package's top: the processes that run pipeline queries and
previews (datahub.platform.isolation) import ``datahub.datasets.tabular`` without Flask.
"""


def create_app(test_config=None):
    from datahub.app.factory import create_app as factory

    return factory(test_config)
