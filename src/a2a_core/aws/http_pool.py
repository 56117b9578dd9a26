"""Keep-alive HTTP(S) connections to one AWS endpoint, on the standard library's ``http.client``.

Up to ``size`` idle connections are kept (calls run in threads, each takes its own); a connection
the server closed while it was idle (an idle Lambda is frozen for minutes) fails at its next
request before any answer, and that request is sent again once on a new connection. `reset`
drops them all: after a SnapStart restore the sockets of the snapshot lead nowhere.

TLS certificates are checked against the Amazon roots (``amazon_roots.pem``: Amazon Root CA 1-4
and Starfield Services Root CA G2, which every AWS service endpoint chains to) for hosts under
``amazonaws.com``: loading those five costs ~1 ms of CPU, certifi's 117 roots ~17 ms, once per
process. ``AWS_CA_BUNDLE`` replaces them, as it does for botocore; other hosts (an emulator
behind TLS) get certifi's bundle, or the system's.
"""

from __future__ import annotations

import functools
import http.client
import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import ssl

AMAZON_ROOTS = Path(__file__).with_name("amazon_roots.pem")
_AWS_HOSTS = (".amazonaws.com",)


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes


class HttpPool:
    def __init__(self, url: str, *, connect_timeout: float, read_timeout: float, size: int = 10) -> None:
        parts = urlsplit(url)
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.tls else 80)
        default_port = self.port == (443 if self.tls else 80)
        # What the Host header (and so the signature) carries: the port only when not the default.
        self.netloc = self.host if default_port else f"{self.host}:{self.port}"
        self.path = parts.path or "/"
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.size = size
        self._idle: list[http.client.HTTPConnection] = []
        # A pool let go of (a rebuilt client, a test's) closes its idle sockets. A finalizer, not
        # __del__: the garbage collector runs it before any object's own finalizer, so a pool
        # collected in a cycle with its connections still closes them before a socket would warn.
        weakref.finalize(self, _close_all, self._idle)
        self._lock = threading.Lock()

    def send(self, method: str, headers: dict[str, str], body: bytes) -> HttpResponse:
        """One request and its whole answer; raises `OSError` or `http.client.HTTPException`
        when there is no answer."""
        connection, reused = self._take()
        try:
            return self._exchange(connection, method, headers, body)
        except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
            connection.close()
            if not reused:
                raise
        except BaseException:
            connection.close()
            raise
        # The server had closed the idle connection: nothing was read, so nothing was done.
        connection = self._connect()
        try:
            return self._exchange(connection, method, headers, body)
        except BaseException:
            connection.close()
            raise

    def reset(self) -> None:
        """Close every idle connection (after a snapshot restore or a fork)."""
        with self._lock:
            idle = self._idle[:]
            self._idle.clear()
        _close_all(idle)

    def _exchange(
        self, connection: http.client.HTTPConnection, method: str, headers: dict[str, str], body: bytes
    ) -> HttpResponse:
        if connection.sock is None:
            connection.connect()
            assert connection.sock is not None
            connection.sock.settimeout(self.read_timeout)
        connection.request(method, self.path, body, headers)
        response = connection.getresponse()
        data = response.read()
        answer = HttpResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        if response.will_close:
            connection.close()
        else:
            self._give(connection)
        return answer

    def _take(self) -> tuple[http.client.HTTPConnection, bool]:
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return self._connect(), False

    def _give(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < self.size:
                self._idle.append(connection)
                return
        connection.close()

    def _connect(self) -> http.client.HTTPConnection:
        if self.tls:
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=self.connect_timeout, context=tls_context(self.host)
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=self.connect_timeout)


def tls_context(host: str) -> ssl.SSLContext:
    """The context for ``host``'s certificates (see the module's docstring)."""
    bundle = os.environ.get("AWS_CA_BUNDLE")
    if bundle:
        return _context(bundle)
    if host.endswith(_AWS_HOSTS):
        return _context(str(AMAZON_ROOTS))
    return _context(_fallback_bundle())


@functools.cache
def _context(cafile: str | None) -> ssl.SSLContext:
    import ssl

    return ssl.create_default_context(cafile=cafile)


def _fallback_bundle() -> str | None:
    try:
        import certifi
    except ImportError:
        return None  # the system's store
    return str(certifi.where())


def _close_all(connections: list[http.client.HTTPConnection]) -> None:
    for connection in connections[:]:
        connection.close()
