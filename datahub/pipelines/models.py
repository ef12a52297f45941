"""A pipeline and its runs."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from datahub.app.extensions import db
from datahub.pipelines.errors import PipelineNotFound
from datahub.platform.database import UTCDateTime, utcnow
from datahub.resources.models import OwnedNamed

ACTIVE_STATUSES = ("queued", "running")
STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")
# Both SQLite and PostgreSQL accept this predicate in a partial index.
ACTIVE_PREDICATE = sa.text("status IN ('queued', 'running')")


class Pipeline(OwnedNamed, db.Model):
    __tablename__ = "pipelines"
    not_found = PipelineNotFound  # what a caller who may not read it is told

    # NULL once the source dataset is deleted: the pipeline stays, its runs then fail.
    source_dataset_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="SET NULL"), index=True
    )
    steps: Mapped[list] = mapped_column(sa.JSON, default=list)
    output_dataset_name: Mapped[str] = mapped_column(sa.String(255))
    output_format: Mapped[str] = mapped_column(sa.String(16), default="csv", server_default="csv")
    source_version: Mapped[int | None] = mapped_column(sa.Integer)  # None: the current one
    # None, {"on": "new_version"} or {"cron": ..., "timezone": ...} (datahub.pipelines.triggers),
    # a schedule's next due time, and the trigger of a run wanted but not queued yet
    # ("new_version" or "schedule").
    trigger: Mapped[dict | None] = mapped_column(sa.JSON(none_as_null=True))
    next_run_at: Mapped[object | None] = mapped_column(UTCDateTime, index=True)
    pending_trigger: Mapped[str | None] = mapped_column(sa.String(16), index=True)
    # Why the sweep turned the trigger off (migration 0016); None while it works.
    trigger_disabled_reason: Mapped[str | None] = mapped_column(sa.String(255))


class Run(db.Model):
    """One execution. At most one run per pipeline is queued or running: the partial
    unique index ``ux_runs_active_pipeline`` says so to every worker on every host."""

    __tablename__ = "runs"
    __table_args__ = (
        sa.Index("ix_runs_pipeline_id_id", "pipeline_id", "id"),
        sa.Index("ix_runs_status_id", "status", "id"),
        sa.Index("ix_runs_fingerprint_id", "fingerprint", "id"),
        sa.Index(
            "ux_runs_active_pipeline",
            "pipeline_id",
            unique=True,
            sqlite_where=ACTIVE_PREDICATE,
            postgresql_where=ACTIVE_PREDICATE,
        ),
        {"sqlite_autoincrement": True},  # run ids are never given again (migration 0008)
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    pipeline_id: Mapped[int] = mapped_column(sa.ForeignKey("pipelines.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(sa.String(16), default="queued")
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[object | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[object | None] = mapped_column(UTCDateTime)
    rows_in: Mapped[int | None] = mapped_column(sa.BigInteger)
    rows_out: Mapped[int | None] = mapped_column(sa.BigInteger)
    error: Mapped[str | None] = mapped_column(sa.Text)
    output_dataset_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="SET NULL")
    )
    output_version: Mapped[int | None] = mapped_column(sa.Integer)
    # What the run computes (datahub.pipelines.execute.fingerprint), and the earlier run
    # whose output it reused instead (no foreign key: that run may be deleted since).
    fingerprint: Mapped[str | None] = mapped_column(sa.String(64))
    reused_run_id: Mapped[int | None] = mapped_column(sa.Integer)
    # Milliseconds by phase (datahub.pipelines.timings, migration 0022); None before then.
    timings: Mapped[dict | None] = mapped_column(sa.JSON(none_as_null=True))
    # The versions the run read (datasets.models.VersionRead), recorded as it started.
    reads: Mapped[list["VersionRead"]] = relationship(  # noqa: F821  (datasets.models)
        lazy="selectin",
        order_by="[VersionRead.dataset_id, VersionRead.version]",
        viewonly=True,
    )
    # Which worker holds a running run, and when it last said it is alive.
    # "user", "new_version" or "schedule" (datahub.pipelines.triggers). No Python default:
    # rows inserted without one take the database's (also at older revisions: the tests).
    triggered_by: Mapped[str] = mapped_column(sa.String(16), server_default="user")
    worker: Mapped[str | None] = mapped_column(sa.String(255))
    heartbeat_at: Mapped[object | None] = mapped_column(UTCDateTime)

    @property
    def inputs(self):
        return [{"dataset_id": row.dataset_id, "version": row.version} for row in self.reads]

    @property
    def output(self):
        if self.output_dataset_id is None or self.output_version is None:
            return None
        return {"dataset_id": self.output_dataset_id, "version": self.output_version}
