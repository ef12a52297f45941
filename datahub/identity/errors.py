"""The identity core's errors: authentication, sessions and accounts of identity providers."""
from datahub.web.errors import APIError, Conflict, NotFound, ServiceUnavailable


class NotAuthenticated(APIError):
    code = 401
    detail = "Not authenticated"


class InvalidToken(NotAuthenticated): detail = "Invalid token"
class TokenExpired(NotAuthenticated): detail = "Token has expired"
class TokenRevoked(NotAuthenticated): detail = "Token has been revoked"
class InvalidCredentials(NotAuthenticated): detail = "Invalid email or password"
class SessionNotFound(NotFound): detail = "Session not found"
class AuthServiceUnavailable(ServiceUnavailable): detail = "Authentication service unavailable"
class AccountExistsWithOtherProvider(Conflict): detail = "Account exists with another provider"
class PasswordManagedByProvider(Conflict): detail = "Password is managed by the identity provider"
class OIDCLoginFailed(NotAuthenticated): detail = "OIDC login failed"
class OIDCNotConfigured(NotFound): detail = "OIDC logins are not configured"
