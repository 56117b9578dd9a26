"""Fixtures for end-to-end tests: the real `a2a-serverless dev` server in a subprocess (and, for
the client matrix, a2a-sdk 1.3's own server the same way).

Each server is started once per test module on a free loopback port and stopped on teardown.
Its combined stdout/stderr is drained by a thread, so the pipe never fills however much the
server logs, and the captured lines are shown when the server fails to come up.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

import httpx
import pytest

from a2a_core.auth.testing import LocalIssuer

STARTUP_TIMEOUT = 20.0
STOP_TIMEOUT = 5.0
ECHO_AGENT = "a2a_core.examples.echo:agent"
MULTITURN_AGENT = "a2a_core.examples.multiturn:agent"
PYDANTIC_AI_AGENT = "a2a_core.examples.pydantic_ai_agent:agent"
# tests/agents.py, imported by the server from tests/ (see `_with_tests_on_path`).
SLOW_AGENT = "agents:slow"
SCRIPTED_AGENT = "agents:scripted"
TESTS_DIR = Path(__file__).resolve().parents[1]
# Keepalive comments every 0.2 s instead of 15 s, so a test can see them while the agent is quiet.
KEEPALIVE_SECONDS = 0.2

_URL_LINE = re.compile(r"^A2A agent listening on (?P<url>http://\S+)\s*$")


class ServerProcess:
    """One server process (`a2a-serverless dev`, or a reference server that prints the same
    banner) and the lines it has printed so far."""

    def __init__(self, label: str, command: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.label = label
        self.base_url: str | None = None
        self._lines: collections.deque[str] = collections.deque(maxlen=2000)
        self._lock = threading.Lock()
        self._url_or_eof = threading.Event()
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        # A fixed argv of our own interpreter and modules: no untrusted input reaches it.
        self.process = subprocess.Popen(  # noqa: S603
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env=env,
        )
        self._reader = threading.Thread(target=self._drain, name=f"drain {label}", daemon=True)
        self._reader.start()

    @property
    def output(self) -> str:
        with self._lock:
            return "".join(self._lines)

    def _drain(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        for line in stream:
            with self._lock:
                self._lines.append(line)
            match = _URL_LINE.match(line)
            if match and self.base_url is None:
                self.base_url = match.group("url")
                self._url_or_eof.set()
        self._url_or_eof.set()  # EOF: the process exited (or closed its stdout)

    def wait_ready(self, timeout: float) -> str:
        """The base URL once the server prints it and answers /healthz; fails the test otherwise."""
        deadline = time.monotonic() + timeout
        self._url_or_eof.wait(timeout)
        url = self.base_url
        if url is None:
            if self._url_or_eof.is_set():  # its output ended: the process is exiting
                with contextlib.suppress(subprocess.TimeoutExpired):
                    code = self.process.wait(STOP_TIMEOUT)
                    self.fail(f"exited with code {code} before printing its URL")
            self.fail(f"did not print its URL within {timeout:.0f} s")
        # The banner is printed once the socket is bound, which may be just before uvicorn
        # starts listening on it: poll until the server really answers.
        last_error = "no attempt"
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    self.fail(f"exited with code {self.process.returncode}")
                try:
                    response = client.get(f"{url}healthz")
                except httpx.TransportError as error:
                    last_error = repr(error)
                else:
                    if response.status_code == 200 and response.json() == {"status": "ok"}:
                        return url
                    last_error = f"HTTP {response.status_code}: {response.text}"
                time.sleep(0.05)
        self.fail(f"printed {url} but /healthz did not answer within {timeout:.0f} s ({last_error})")

    def fail(self, reason: str) -> NoReturn:
        self.stop()
        pytest.fail(f"{self.label} {reason}; its output:\n{self.output}", pytrace=False)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_TIMEOUT)
        self._reader.join(STOP_TIMEOUT)
        if self.process.stdout is not None:
            self.process.stdout.close()


def _serve(agent: str, backend: str, env: Mapping[str, str] | None = None) -> Iterator[str]:
    command = [
        *(sys.executable, "-m", "a2a_core.cli", "dev", "--port", "0"),
        *("--agent", agent, "--backend", backend),
    ]
    yield from _run(ServerProcess(f"dev server ({backend}) for {agent}", command, env))


def _run(server: ServerProcess) -> Iterator[str]:
    try:
        yield server.wait_ready(STARTUP_TIMEOUT)
    finally:
        server.stop()


# Every e2e test runs against the default embedded AWS (moto) and the pure in-memory backend.
BACKENDS = ["local", "memory"]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture(scope="module")
def echo_server(backend: str) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT/``) of a dev server running the echo agent."""
    yield from _serve(ECHO_AGENT, backend)


@pytest.fixture(scope="module")
def multiturn_server(backend: str) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT/``) of a dev server running the multiturn agent."""
    yield from _serve(MULTITURN_AGENT, backend)


def _with_tests_on_path(**env: str) -> dict[str, str]:
    """The server's extra environment: ``env`` plus tests/ on PYTHONPATH (for `SLOW_AGENT`)."""
    path = os.pathsep.join(p for p in (str(TESTS_DIR), os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path, **env}


@pytest.fixture(scope="module")
def slow_server(backend: str) -> Iterator[str]:
    """Base URL of a dev server running `agents.slow` (paced by the text of each message)."""
    yield from _serve(SLOW_AGENT, backend, _with_tests_on_path())


@pytest.fixture(scope="module")
def keepalive_server(backend: str) -> Iterator[str]:
    """Like `slow_server`, but sending ``: keepalive`` every `KEEPALIVE_SECONDS` of silence."""
    env = _with_tests_on_path(A2A_STREAM_KEEPALIVE_SECONDS=str(KEEPALIVE_SECONDS))
    yield from _serve(SLOW_AGENT, backend, env)


@pytest.fixture(scope="module")
def pydantic_ai_server(backend: str) -> Iterator[str]:
    """Base URL of a dev server running the pydantic-ai example agent."""
    yield from _serve(PYDANTIC_AI_AGENT, backend)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# Auth on (test_cli.py): two API keys, or tokens from a local issuer whose JWKS file the server reads.
@pytest.fixture(scope="module")
def api_keys() -> dict[str, str]:
    return {"alice": "alice-key-0123456789abcdef", "bob": "bob-key-0123456789abcdef"}


@pytest.fixture(scope="module")
def api_key_server(api_keys: dict[str, str]) -> Iterator[str]:
    env = {"A2A_AUTH_MODE": "api_key", "A2A_API_KEYS": json.dumps(api_keys)}
    yield from _serve(ECHO_AGENT, "memory", env)


@pytest.fixture(scope="module")
def local_issuer() -> LocalIssuer:
    return LocalIssuer()


@pytest.fixture(scope="module")
def jwt_server(local_issuer: LocalIssuer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = local_issuer.settings(tmp_path_factory.mktemp("issuer"))
    env = {
        "A2A_AUTH_MODE": "jwt",
        "A2A_JWT_ISSUER": settings["jwt_issuer"],
        "A2A_JWT_AUDIENCE": settings["jwt_audience"],
        "A2A_JWT_JWKS_FILE": settings["jwt_jwks_file"],
        "A2A_JWT_ALGORITHMS": json.dumps(settings["jwt_algorithms"]),
    }
    yield from _serve(ECHO_AGENT, "memory", env)


# The client matrix (tests/clients/): servers running the `agents.scripted` contract.


def serve_scripted() -> Iterator[str]:
    """Our dev server on the default embedded AWS (moto), push on, running `agents.scripted`."""
    yield from _serve(SCRIPTED_AGENT, "local", _with_tests_on_path(A2A_PUSH_ENABLED="true"))


def serve_reference() -> Iterator[str]:
    """a2a-sdk 1.3's own server (`clients.reference_server`): 1.0 JSON-RPC and REST, 0.3 compat."""
    command = [sys.executable, "-m", "clients.reference_server", "--port", "0"]
    yield from _run(ServerProcess("a2a-sdk 1.3 reference server", command, _with_tests_on_path()))


# Servers the 1.0 client tests (test_clients_v1.py) run against, by name. Each speaks A2A 1.0
# over JSON-RPC and HTTP+JSON at its base URL and runs the scripted contract.
V1_SERVERS: dict[str, Callable[[], Iterator[str]]] = {
    "a2a-sdk-1.3": serve_reference,
    "a2a-serverless": serve_scripted,
}


@pytest.fixture(scope="module")
def scripted_server() -> Iterator[str]:
    yield from serve_scripted()


@pytest.fixture(scope="module", params=list(V1_SERVERS))
def v1_server(request: pytest.FixtureRequest) -> Iterator[str]:
    """Base URL of each server in `V1_SERVERS`, in turn."""
    yield from V1_SERVERS[request.param]()
