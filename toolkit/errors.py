"""Domain errors raised by services and mapped to HTTP by one exception handler.

Services never import DRF; views never build error bodies by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class Code(StrEnum):
    """The codes any endpoint may answer with; each app lists its own in <app>/errors.py."""

    INVALID = "invalid"  # 400, field errors in `errors`
    PARSE_ERROR = "parse_error"  # 400: not JSON, or nested too deep
    BAD_REQUEST = "bad_request"  # 400 before any view (a malformed request line or header)
    NOT_AUTHENTICATED = "not_authenticated"  # 401
    AUTHENTICATION_FAILED = "authentication_failed"  # 401
    PERMISSION_DENIED = "permission_denied"  # 403
    CSRF_FAILED = "csrf_failed"  # 403 (never on API views: they use no cookies)
    NOT_FOUND = "not_found"  # 404, also any method on an unknown /api/ path
    METHOD_NOT_ALLOWED = "method_not_allowed"  # 405, with Allow
    NOT_ACCEPTABLE = "not_acceptable"  # 406
    CONFLICT = "conflict"  # 409
    IN_USE = "in_use"  # 409: other rows still point at what a delete would remove
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"  # 409: the same key, another body
    IDEMPOTENCY_IN_PROGRESS = "idempotency_in_progress"  # 409: the key's first still runs
    IDEMPOTENCY_KEY_SPENT = "idempotency_key_spent"  # 409: what the key made was deleted
    PAYLOAD_TOO_LARGE = "payload_too_large"  # 413
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"  # 415
    THROTTLED = "throttled"  # 429, with Retry-After
    NOT_AN_IMAGE = "not_an_image"  # 400: an upload that is no JPEG, PNG or WebP we can read
    IMAGE_TOO_LARGE = "image_too_large"  # 413: an upload over 5 MB
    IMAGE_TOO_MANY_PIXELS = "image_too_many_pixels"  # 400: a decompression bomb
    SERVER_ERROR = "server_error"  # 500
    SERVICE_UNAVAILABLE = "service_unavailable"  # 503, with Retry-After
    BUSY = "busy"  # 503, with Retry-After: the database gave up on a lock, again and again


class DomainError(Exception):
    """A business rule said no. `code` is the stable machine-readable reason; `detail`
    is for people, in the language of the request that raised it
    (docs/product/content.md#languages)."""

    status_code = 400
    default_code: str = Code.INVALID
    default_detail = _("The request cannot be processed.")

    def __init__(self, detail: StrOrPromise | None = None, code: str | None = None) -> None:
        # Translated now, while the request's language is active, and a plain str from
        # here on: safe for json.dumps, logging and pickling alike.
        self.detail = str(detail or self.default_detail)
        self.code = code or self.default_code
        super().__init__(self.detail)

    def __reduce__(self) -> tuple:
        """Pickled with its code and extras (a refusal from the image process,
        pictures.imagework), whatever its subclass's __init__ takes."""
        return (_restore, (type(self), self.args, self.__dict__))


def _restore(cls: type[DomainError], args: tuple, state: dict) -> DomainError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InvalidInput(DomainError):
    status_code = 400


class NotAuthenticated(DomainError):
    status_code = 401
    default_code: str = Code.NOT_AUTHENTICATED
    default_detail = _("Authentication credentials were not provided or have expired.")


class NotFound(DomainError):
    status_code = 404
    default_code: str = Code.NOT_FOUND
    default_detail = _("Not found.")


class Forbidden(DomainError):
    status_code = 403
    default_code: str = Code.PERMISSION_DENIED
    default_detail = _("You do not have permission to perform this action.")


class MethodNotAllowed(DomainError):
    """A method the route does not serve; the answer's `Allow` names those it does."""

    status_code = 405
    default_code: str = Code.METHOD_NOT_ALLOWED

    def __init__(self, method: str | None, allowed: Iterable[str]) -> None:
        super().__init__(gettext('Method "%(method)s" not allowed.') % {"method": method})
        self.allowed = ", ".join(sorted(allowed))


class PayloadTooLarge(DomainError):
    """A body over its route's limit (Django's RequestDataTooBig too), or a picture over
    the size an upload may have."""

    status_code = 413
    default_code: str = Code.PAYLOAD_TOO_LARGE
    default_detail = _("The request body is too large.")


class Conflict(DomainError):
    status_code = 409
    default_code: str = Code.CONFLICT
    default_detail = _("The request conflicts with the current state.")


class RateLimited(DomainError):
    status_code = 429
    default_code: str = Code.THROTTLED
    default_detail = _("Too many requests.")

    def __init__(self, retry_after: float, detail: str | None = None) -> None:
        super().__init__(detail)
        self.retry_after = max(1, int(retry_after + 0.999))


class ServiceUnavailable(DomainError):
    status_code = 503
    default_code: str = Code.SERVICE_UNAVAILABLE
    default_detail = _("A dependency is unavailable; try again shortly.")

    def __init__(
        self, detail: str | None = None, code: str | None = None, *, retry_after: int = 1
    ) -> None:
        super().__init__(detail, code)
        self.retry_after = retry_after
