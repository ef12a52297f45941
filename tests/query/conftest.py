from tests.resources import actors  # noqa: F401  (fixture)
