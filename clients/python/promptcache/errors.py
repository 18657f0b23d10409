"""Typed errors of the promptcache client. Every error the server reports carries its stable code and message."""

from typing import Optional


class PromptcacheError(Exception):
    """Base class of every error this package raises."""


class ApiError(PromptcacheError):
    """The index-service (or a storage node) answered with an error status.

    ``status`` is the HTTP status, ``code`` the stable error code of the body (``{"error": ..., "message": ...}``),
    ``message`` what to do about it.
    """

    def __init__(self, status: int, code: str, message: str, retry_after: Optional[float] = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class BadRequest(ApiError):
    """4xx for input the server refused: fix the request, retrying does not help."""


class AuthError(ApiError):
    """401 (no or wrong API key) or 403 (the key's tenant may not do this)."""


class NotFound(ApiError):
    """404: no such namespace or object."""


class Conflict(ApiError):
    """409: the request conflicts with the state (for instance a continuation whose parent is gone)."""


class Unavailable(ApiError):
    """503 (after the bounded retries honouring Retry-After): the condition passes, try again later."""


class TransportError(PromptcacheError):
    """The connection failed or timed out (after one reconnect of a kept-alive connection)."""


def for_status(status: int, code: str, message: str, retry_after: Optional[float] = None) -> ApiError:
    """The typed error of an HTTP status."""
    kind = ApiError
    if status in (401, 403):
        kind = AuthError
    elif status == 404:
        kind = NotFound
    elif status == 409:
        kind = Conflict
    elif status == 503:
        kind = Unavailable
    elif 400 <= status < 500:
        kind = BadRequest
    return kind(status, code, message, retry_after)
