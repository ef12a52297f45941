"""Typed errors: every non-2xx answer becomes one of these, with ``status`` and ``detail``."""


class DatahubError(Exception):
    """The service answered with an error (or could not be reached: status 0)."""

    def __init__(self, status, detail):
        self.status = status
        self.detail = detail
        super().__init__(f"{status}: {self.message}")

    @property
    def message(self):
        if isinstance(self.detail, list):  # 422: [{"loc", "msg", "type"}, ...]
            return "; ".join(
                f"{'.'.join(str(part) for part in item.get('loc', [])[1:]) or 'body'}: {item.get('msg')}"
                for item in self.detail
            )
        return str(self.detail)


class BadRequestError(DatahubError):
    pass


class AuthenticationError(DatahubError):
    pass


class PermissionDeniedError(DatahubError):
    pass


class NotFoundError(DatahubError):
    pass


class ConflictError(DatahubError):
    pass


class ValidationError(DatahubError):
    pass


class RateLimitedError(DatahubError):
    pass


class ServerError(DatahubError):
    pass


class NotReadyError(DatahubError):
    """202: what was asked for is not ready yet (a version's schema or profile, which a
    worker reads once the version is made), and the wait ran out."""


class UnreachableError(DatahubError):
    """No answer from ``url`` (refused, name not resolved, timed out...): status 0.
    ``message`` names the URL alone; ``detail`` and ``reason`` say what urllib3 saw."""

    def __init__(self, url, reason):
        self.url, self.reason = url, reason
        super().__init__(0, f"cannot reach {url}: {reason}")

    @property
    def message(self):
        return f"cannot reach {self.url}"


_BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitedError,
}


def error_for(status, detail):
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else DatahubError)
    return cls(status, detail)
