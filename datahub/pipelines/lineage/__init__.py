"""Lineage: which runs made a version of a dataset and from which versions, and what was
made from it (docs/guides/versions.rst, "Lineage"), served under ``/api/v1/datasets/``;
and the runs' OpenLineage events (``openlineage.py``)."""
