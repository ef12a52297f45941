"""Groups: their administration (API and operator CLI); membership sync is
datahub.identity.group_sync."""
