"""OpenLineage RunEvents for pipeline runs (docs/guides/versions.rst, "OpenLineage"): with
``OPENLINEAGE_URL`` set, each run emits START when it starts and COMPLETE or FAIL when it
ends, through openlineage-python's HTTP transport (the one module that imports it).

A run is the job ``pipelines/<pipeline id>`` of the namespace ``OPENLINEAGE_NAMESPACE``;
its inputs and output are datasets of that namespace named ``datasets/<id>@<version>``.
The run's OpenLineage id is a UUID derived from the namespace and the run's id, so that
its START and its end name the same run whatever process sends them.

Sending never fails a run: an unreachable or refusing receiver is logged (one warning
line per event) and the run goes on. Events are sent from the worker's run thread, each
within ``OPENLINEAGE_TIMEOUT_SECONDS``.
"""

import logging
import uuid
from datetime import UTC, datetime

from flask import current_app

from datahub.app.registry import per_app

log = logging.getLogger("datahub.openlineage")

PRODUCER = "https://github.com/datahub/datahub"  # who made the events (OpenLineage's producer)
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"


class Emitter:
    """The OpenLineage client of this app, or none when ``OPENLINEAGE_URL`` is not set."""

    def __init__(self, config):
        self.client = None
        self.namespace = config["OPENLINEAGE_NAMESPACE"]
        url = config.get("OPENLINEAGE_URL")
        if not url:
            return
        from openlineage.client import OpenLineageClient
        from openlineage.client.transport.http import HttpConfig, HttpTransport

        transport = HttpTransport(
            HttpConfig.from_dict(
                {
                    "url": url,
                    "endpoint": config["OPENLINEAGE_ENDPOINT"],
                    "timeout": float(config["OPENLINEAGE_TIMEOUT_SECONDS"]),
                    # One quick retry: a run must not wait long on a receiver.
                    "retry": {
                        "total": 1,
                        "backoff_factor": 0.2,
                        "status_forcelist": [502, 503, 504],
                    },
                }
            )
        )
        self.client = OpenLineageClient(transport=transport)

    def run_id(self, run_id):
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"datahub:{self.namespace}/runs/{run_id}"))

    def emit(self, state, run_id, pipeline_id, inputs, output=None, error=None):
        """Send one RunEvent; ``inputs`` ``[(dataset_id, version)]``, ``output`` one or
        None, ``error`` the failure's message."""
        if self.client is None:
            return
        from openlineage.client.event_v2 import (
            InputDataset,
            Job,
            OutputDataset,
            Run,
            RunEvent,
            RunState,
        )
        from openlineage.client.facet_v2 import error_message_run

        facets = {}
        if error:
            facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
                message=error, programmingLanguage="SQL"
            )
        states = {
            "START": RunState.START,
            "COMPLETE": RunState.COMPLETE,
            "FAIL": RunState.FAIL,
            "ABORT": RunState.ABORT,
        }
        event = RunEvent(
            eventType=states[state],
            eventTime=datetime.now(UTC).isoformat(),
            run=Run(runId=self.run_id(run_id), facets=facets),
            job=Job(namespace=self.namespace, name=f"pipelines/{pipeline_id}"),
            producer=PRODUCER,
            inputs=[InputDataset(self.namespace, _name(*read)) for read in inputs],
            outputs=[OutputDataset(self.namespace, _name(*output))] if output else [],
        )
        try:
            self.client.emit(event)
        except Exception as exc:  # noqa: BLE001  the receiver's trouble never fails a run
            log.warning("OpenLineage %s event of run %s not sent: %s", state, run_id, exc)


def _name(dataset_id, version):
    return f"datasets/{dataset_id}@{version}"


def emitter(app=None):
    app = app or current_app._get_current_object()
    return per_app(app, "datahub.openlineage", lambda: Emitter(app.config))


def run_started(run_id, pipeline_id, reads):
    """START for a run that reads ``reads`` (``[(dataset_id, version)]``)."""
    emitter().emit("START", run_id, pipeline_id, reads)


def run_ended(run):
    """COMPLETE for a succeeded ``run``, FAIL for a failed one (a cancelled run: ABORT)."""
    state = {"succeeded": "COMPLETE", "failed": "FAIL", "cancelled": "ABORT"}.get(run.status)
    if state is None:
        return
    output = run.output and (run.output["dataset_id"], run.output["version"])
    emitter().emit(
        state,
        run.id,
        run.pipeline_id,
        [(r["dataset_id"], r["version"]) for r in run.inputs],
        output=output,
        error=run.error if state == "FAIL" else None,
    )
