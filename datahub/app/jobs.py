"""The program of an isolated process (``python -m datahub.app.jobs``, started by
datahub.platform.isolation): the jobs it can run, imported before its job arrives. With
``--fork-server FD`` it is the fork server, which forks one such process per job
(datahub.platform.isolation.zygote). A warm pool's spare prepares a DuckDB database while
it waits (``tabular.prepare``)."""

import sys

from datahub.datasets import tabular
from datahub.datasets.checks.job import checks_job
from datahub.datasets.diff_query import diff_job
from datahub.datasets.previews_job import preview_job
from datahub.datasets.profiles.job import profile_job
from datahub.pipelines.preview_job import pipeline_preview_job
from datahub.pipelines.query_job import run_query_job
from datahub.platform.isolation.child import serve
from datahub.query.job import query_job
from datahub.search.values_job import column_values_job

JOBS = {
    "preview": preview_job,
    "diff": diff_job,
    "pipeline_run": run_query_job,
    "pipeline_preview": pipeline_preview_job,
    "column_values": column_values_job,
    "profile": profile_job,
    "checks": checks_job,
    "query": query_job,
}

if __name__ == "__main__":
    if sys.argv[1:2] == ["--fork-server"]:
        from datahub.platform.isolation.zygote import serve_forks

        serve_forks(JOBS, int(sys.argv[2]), prepare=tabular.prepare)
    else:
        serve(JOBS, prepare=tabular.prepare)
