"""Pipelines (declarative CSV transformations of one dataset into another) and their runs."""
