"""The datasets' side of storage (datahub.platform.storage): removing files whose rows are gone,
and the sweep run at worker start, which asks the database which keys versions refer to.
The backends themselves live in :mod:`datahub.platform.storage`."""

import logging

import sqlalchemy as sa

from datahub.platform.errors import StorageUnavailable
from datahub.platform.storage import get_storage

log = logging.getLogger("datahub.storage")


def delete_quietly(key):
    """Remove a file whose row is already gone; a failure only leaves an orphan file,
    which S3 storage removes once it answers again (``delete_later``)."""
    if not key:
        return
    storage = get_storage()
    try:
        storage.delete(key)
    except (OSError, StorageUnavailable):
        log.warning("could not remove stored file %s", key, exc_info=True)
        if hasattr(storage, "delete_later"):
            storage.delete_later(key)


def sweep_storage(app):
    """Remove what killed workers left in storage (see datahub.platform.storage.local and
    datahub.platform.storage.s3); run at worker start. Never fails the start: a failure is logged and the files stay."""
    from datahub.app.extensions import db
    from datahub.datasets.models import DatasetVersion

    with app.app_context():
        try:
            referenced = set(db.session.scalars(sa.select(DatasetVersion.file_key).distinct()))
            db.session.rollback()

            def is_referenced(key):
                # The candidates are few (orphans); each is looked up again while locked,
                # as its upload may have committed since the list above was read.
                if key not in referenced:
                    found = db.session.scalar(
                        sa.select(DatasetVersion.dataset_id).where(DatasetVersion.file_key == key)
                    )
                    db.session.rollback()
                    return found is not None
                return True

            removed = get_storage().sweep(is_referenced)
        except (sa.exc.SQLAlchemyError, OSError, StorageUnavailable) as exc:  # a server is down
            log.warning(
                "could not sweep the storage (the files stay until a later worker start): %s", exc
            )
            return []
        except Exception:
            log.exception("could not sweep the storage")
            return []
        finally:
            db.session.remove()
    if removed:
        log.warning(
            "removed %d file(s) left by interrupted uploads: %s",
            len(removed),
            ", ".join(sorted(removed)),
        )
    return removed
