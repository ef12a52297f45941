"""Column descriptions, kept by column name across a dataset's versions."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.app.extensions import db


class ColumnDescription(db.Model):
    """What a column of a dataset means, kept by the column's name across versions: a
    version that has the column shows it, one that lacks it does not lose it."""

    __tablename__ = "dataset_column_descriptions"

    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    description: Mapped[str] = mapped_column(sa.Text)
