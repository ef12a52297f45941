"""``python -m datahub.spa.document FILE``: write the service's OpenAPI document (as
``/api/v1/openapi.json`` serves it, default settings) to FILE, for the web app's generated
client (web/openapi.json; the tests fail when the two drift)."""

import json
import sys
import tempfile
from pathlib import Path


def openapi_document():
    from datahub import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "TESTING": True,
                "SECRET_KEY": "document-only-" * 4,
                "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/document.db",
                "STORAGE_PATH": folder,
            }
        )
        response = app.test_client().get("/api/v1/openapi.json")
        assert response.status_code == 200, response.status_code
        return response.get_json()


def main(path):
    text = json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"
    Path(path).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
