"""The datasets' blueprint, /api/v1/datasets: its CRUD routes are in ``routes``, its file
routes (upload, download, preview) in ``file_routes``."""

from datahub.identity.guard import authenticate
from datahub.web.api import Blueprint

blp = Blueprint(
    "datasets",
    __name__,
    url_prefix="/api/v1/datasets",
    guard=authenticate,
    description="Datasets: described data with an optional file",
)
