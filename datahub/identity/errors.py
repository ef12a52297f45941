"""The identity core's errors: authentication and sessions."""
from datahub.errors import APIError, NotFound


class NotAuthenticated(APIError):
    code = 401
    detail = "Not authenticated"


class InvalidToken(NotAuthenticated): detail = "Invalid token"
class TokenExpired(NotAuthenticated): detail = "Token has expired"
class TokenRevoked(NotAuthenticated): detail = "Token has been revoked"
class InvalidCredentials(NotAuthenticated): detail = "Invalid email or password"
class SessionNotFound(NotFound): detail = "Session not found"
