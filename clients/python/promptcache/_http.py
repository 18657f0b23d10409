"""HTTP/1.1 with keep-alive connections per thread, timeouts, and bounded retries of 503 + Retry-After."""

import http.client
import json
import ssl
import threading
import time
import urllib.parse
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, TypeVar

from .errors import ApiError, TransportError, Unavailable, for_status

T = TypeVar("T")

#: errors of a kept-alive connection the server closed meanwhile: the request is sent again on a new one
_STALE = (http.client.RemoteDisconnected, http.client.CannotSendRequest, BrokenPipeError, ConnectionResetError)


class Transport:
    """Sends requests on connections kept alive per thread and per (scheme, host, port).

    ``retries`` bounds how often a 503 is retried (waiting its Retry-After, at most ``max_wait`` seconds each);
    other errors are raised at once as typed :class:`~promptcache.errors.ApiError` subclasses.
    """

    def __init__(self, timeout: float, retries: int, max_wait: float, headers: Mapping[str, str],
                 tls: Optional[ssl.SSLContext] = None):
        self.timeout = timeout
        #: verifies every HTTPS server (the system's CAs unless a context with others is given)
        self.tls = tls if tls is not None else ssl.create_default_context()
        self.retries = retries
        self.max_wait = max_wait
        self.headers = dict(headers)
        self._local = threading.local()
        self._retried = 0
        self._count = threading.Lock()

    @property
    def retried(self) -> int:
        """503 answers retried so far (all threads)."""
        return self._retried

    def close(self) -> None:
        """Closes this thread's connections."""
        for connection in getattr(self._local, "connections", {}).values():
            connection.close()
        self._local.connections = {}

    def json(self, method: str, url: str, body: Any = None) -> Tuple[int, Dict[str, Any]]:
        """A JSON request; returns the status and the decoded answer (empty for no body)."""
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        return self.call(method, url, data, {"Content-Type": "application/json"}, _json_answer)

    def call(self, method: str, url: str, body: Optional[Any], headers: Mapping[str, str],
             answer: Callable[[http.client.HTTPResponse], T], extra_ok: Tuple[int, ...] = ()) -> T:
        """Sends the request (retrying 503s as configured) and hands a 2xx response to ``answer``.

        Statuses in ``extra_ok`` are handed to ``answer`` too instead of being raised.
        """
        attempt = 0
        while True:
            connection, response = self._send(method, url, body, headers)
            try:
                if 200 <= response.status < 300 or response.status in extra_ok:
                    result = answer(response)
                    _finish(response)
                    return result
                error = _error(response)
                _finish(response)
            except BaseException:
                # a half-read answer leaves the connection unusable: the next call opens a new one
                connection.close()
                raise
            if isinstance(error, Unavailable) and attempt < self.retries:
                attempt += 1
                with self._count:
                    self._retried += 1
                time.sleep(min(self.max_wait, error.retry_after if error.retry_after is not None else 0.1 * attempt))
                continue
            raise error

    def _send(self, method: str, url: str, body: Optional[Any],
              headers: Mapping[str, str]) -> Tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        parts = urllib.parse.urlsplit(url)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        all_headers = dict(self.headers)
        all_headers.update(headers)
        for fresh in (False, True):
            connection = self._connection(parts, fresh)
            try:
                connection.request(method, target, body=body, headers=all_headers)
                return connection, connection.getresponse()
            except _STALE as e:
                connection.close()
                if fresh:
                    raise TransportError(f"{method} {url}: {e!r}") from e
            except (OSError, http.client.HTTPException) as e:
                connection.close()
                raise TransportError(f"{method} {url}: {e!r}") from e
        raise AssertionError("unreachable")

    def _connection(self, parts: urllib.parse.SplitResult, fresh: bool) -> http.client.HTTPConnection:
        connections = getattr(self._local, "connections", None)
        if connections is None:
            connections = self._local.connections = {}
        key = (parts.scheme, parts.hostname, parts.port)
        connection = connections.get(key)
        if connection is None or fresh:
            if connection is not None:
                connection.close()
            if parts.scheme == "https":
                connection = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=self.timeout,
                                                         context=self.tls)
            else:
                connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)
            connections[key] = connection
        return connection


def _json_answer(response: http.client.HTTPResponse) -> Tuple[int, Dict[str, Any]]:
    """The status and the decoded JSON body (empty for no body) of a response."""
    data = response.read()
    return response.status, (json.loads(data) if data else {})


def _error(response: http.client.HTTPResponse) -> ApiError:
    data = response.read()
    code, message = f"HTTP{response.status}", data.decode("utf-8", "replace")[:500]
    try:
        body = json.loads(data)
        if isinstance(body, dict) and "error" in body:
            code, message = str(body["error"]), str(body.get("message", ""))
    except ValueError:
        if b"<Code>" in data:  # an S3 error document from a storage node
            text = data.decode("utf-8", "replace")
            code = text.split("<Code>", 1)[1].split("</Code>", 1)[0]
    retry_after = response.getheader("Retry-After")
    try:
        wait = float(retry_after) if retry_after is not None else None
    except ValueError:
        wait = None
    return for_status(response.status, code, message, wait)


def _finish(response: http.client.HTTPResponse) -> None:
    """Reads what is left so the connection can carry the next request."""
    if not response.isclosed():
        response.read()
