"""Domain errors raised by services and mapped to HTTP by one exception handler.

Services never import DRF; views never build error bodies by hand.
"""

from __future__ import annotations


class DomainError(Exception):
    """A business rule said no. `code` is the stable machine-readable reason."""

    status_code = 400
    default_code = "invalid"
    default_detail = "The request cannot be processed."

    def __init__(self, detail: str | None = None, code: str | None = None) -> None:
        self.detail = detail or self.default_detail
        self.code = code or self.default_code
        super().__init__(self.detail)


class InvalidInput(DomainError):
    status_code = 400


class NotAuthenticated(DomainError):
    status_code = 401
    default_code = "not_authenticated"
    default_detail = "Authentication credentials were not provided or have expired."


class NotFound(DomainError):
    status_code = 404
    default_code = "not_found"
    default_detail = "Not found."


class Forbidden(DomainError):
    status_code = 403
    default_code = "permission_denied"
    default_detail = "You do not have permission to perform this action."


class Conflict(DomainError):
    status_code = 409
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."


class RateLimited(DomainError):
    status_code = 429
    default_code = "throttled"
    default_detail = "Too many requests."

    def __init__(self, retry_after: float, detail: str | None = None) -> None:
        super().__init__(detail)
        self.retry_after = max(1, int(retry_after + 0.999))


class ServiceUnavailable(DomainError):
    status_code = 503
    default_code = "service_unavailable"
    default_detail = "A dependency is unavailable; try again shortly."
