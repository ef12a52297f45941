"""The identity core's errors: authentication (the HTTP contract's 401s, with
``WWW-Authenticate``), and what sessions and the accounts of identity providers refuse
(domain errors, which know no HTTP)."""

from datahub.platform.errors import Conflict, NotFound, Unavailable
from datahub.web.errors import APIError


class NotAuthenticated(APIError):
    code = 401
    detail = "Not authenticated"


class InvalidToken(NotAuthenticated):
    detail = "Invalid token"


class TokenExpired(NotAuthenticated):
    detail = "Token has expired"


class TokenRevoked(NotAuthenticated):
    detail = "Token has been revoked"


class InvalidCredentials(NotAuthenticated):
    detail = "Invalid email or password"


class OIDCLoginFailed(NotAuthenticated):
    detail = "OIDC login failed"


class SessionNotFound(NotFound):
    message = "Session not found"


class AuthServiceUnavailable(Unavailable):
    message = "Authentication service unavailable"


class AccountExistsWithOtherProvider(Conflict):
    message = "Account exists with another provider"


class PasswordManagedByProvider(Conflict):
    message = "Password is managed by the identity provider"


class OIDCNotConfigured(NotFound):
    message = "OIDC logins are not configured"
