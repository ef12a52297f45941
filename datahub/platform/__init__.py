"""The platform: what serves and stores, knowing no request, user or feature."""
