"""The web layer: the HTTP contract every endpoint shares."""
