"""Personal access tokens (``dhp_...``): creating, listing and revoking them (services,
routes under ``/auth/tokens``, schemas), and what the guard (datahub.identity.guard) needs
to accept one as a bearer token."""
