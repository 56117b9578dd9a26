"""A real webhook receiver for the push tests: an HTTP server on 127.0.0.1 that records requests.

It answers with the statuses it was given, in order (then 200), so a test can script a
receiver that fails twice and then accepts; `wait_for` blocks until enough requests arrived.
"""

from __future__ import annotations

import datetime
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() when it had arrived in full
    status: int  # what the receiver answered


class _Server(ThreadingHTTPServer):
    request_queue_size = 512  # socketserver's 5 drops concurrent connects (SYN retried after 1 s)


class Receiver:
    def __init__(
        self, statuses: list[int] | None = None, *, delay: float = 0.0, tls: ssl.SSLContext | None = None
    ) -> None:
        self.statuses = list(statuses or [])
        self.delay = delay
        self.requests: list[Received] = []
        self._cond = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                # Recorded before answering: once the sender has its answer, the test sees the request.
                with receiver._cond:
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                    receiver.requests.append(
                        Received(self.path, dict(self.headers.items()), body, time.monotonic(), status)
                    )
                    receiver._cond.notify_all()
                if receiver.delay:
                    time.sleep(receiver.delay)
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "http://127.0.0.1:9/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self.port = self._server.server_address[1]
        serve = {"poll_interval": 0.02}  # shutdown() waits up to one poll interval
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs=serve, daemon=True)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @property
    def accepted(self) -> list[Received]:
        with self._cond:
            return [r for r in self.requests if 200 <= r.status < 300]

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The first ``count`` requests; fails if they do not all arrive within ``timeout``."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"expected {count} requests, got {len(self.requests)}")
            return list(self.requests[:count])

    def wait_until(self, done: Callable[[Received], bool], timeout: float = 10.0) -> list[Received]:
        """Every request up to and including the first one ``done`` accepts; fails if none does
        within ``timeout``."""

        def arrived() -> int | None:
            return next((i for i, r in enumerate(self.requests) if done(r)), None)

        with self._cond:
            if not self._cond.wait_for(lambda: arrived() is not None, timeout):
                raise AssertionError(f"no matching request among {len(self.requests)}")
            index = arrived()
            assert index is not None
            return list(self.requests[: index + 1])

    def start(self) -> Receiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


@contextmanager
def receiving(
    statuses: list[int] | None = None, *, delay: float = 0.0, tls: ssl.SSLContext | None = None
) -> Iterator[Receiver]:
    receiver = Receiver(statuses, delay=delay, tls=tls).start()
    try:
        yield receiver
    finally:
        receiver.stop()


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tls_for(host: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A server context with a fresh self-signed certificate for ``host``, and a client context
    that trusts exactly that certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.NamedTemporaryFile() as cert_file, tempfile.NamedTemporaryFile() as key_file:
        cert_file.write(cert_pem)
        key_file.write(key_pem)
        cert_file.flush()
        key_file.flush()
        server.load_cert_chain(cert_file.name, key_file.name)
    client = ssl.create_default_context(cadata=cert_pem.decode())
    return server, client
