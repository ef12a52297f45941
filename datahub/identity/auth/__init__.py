"""Authentication: login, refresh, logout, me; token issue and verification."""
