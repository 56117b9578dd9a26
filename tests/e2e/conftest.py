"""Fixtures for end-to-end tests: the real `a2a-serverless dev` server in a subprocess (and, for
the client matrix, a2a-sdk 1.3's own server the same way).

Each server is started once per test module on a free loopback port and stopped on teardown
(`dev_server.DevServer`, `dev_server.ServerProcess`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping

import pytest

from a2a_core.auth.testing import LocalIssuer
from dev_server import STARTUP_TIMEOUT, DevServer, ServerProcess, with_tests_on_path

ECHO_AGENT = "a2a_core.examples.echo:agent"
MULTITURN_AGENT = "a2a_core.examples.multiturn:agent"
PYDANTIC_AI_AGENT = "a2a_core.examples.pydantic_ai_agent:agent"
# tests/agents.py, imported by the server from tests/ (see `with_tests_on_path`).
SLOW_AGENT = "agents:slow"
SCRIPTED_AGENT = "agents:scripted"
# Keepalive comments every 0.2 s instead of 15 s, so a test can see them while the agent is quiet.
KEEPALIVE_SECONDS = 0.2


def _serve(agent: str, backend: str, env: Mapping[str, str] | None = None) -> Iterator[str]:
    yield from _run(DevServer(agent, backend, env))


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


@pytest.fixture(scope="module")
def slow_server(backend: str) -> Iterator[str]:
    """Base URL of a dev server running `agents.slow` (paced by the text of each message)."""
    yield from _serve(SLOW_AGENT, backend, with_tests_on_path())


@pytest.fixture(scope="module")
def keepalive_server(backend: str) -> Iterator[str]:
    """Like `slow_server`, but sending ``: keepalive`` every `KEEPALIVE_SECONDS` of silence."""
    env = with_tests_on_path(A2A_STREAM_KEEPALIVE_SECONDS=str(KEEPALIVE_SECONDS))
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


# A skill only authenticated callers see (the extended card's), with push on so cards are signed.
EXTENDED_SKILL = {"id": "payroll", "name": "Payroll", "description": "Runs the payroll", "tags": ["hr"]}


@pytest.fixture(scope="module")
def extended_card_server(api_keys: dict[str, str]) -> Iterator[str]:
    env = {
        "A2A_AUTH_MODE": "api_key",
        "A2A_API_KEYS": json.dumps(api_keys),
        "A2A_EXTENDED_SKILLS": json.dumps([EXTENDED_SKILL]),
        "A2A_PUSH_ENABLED": "true",
    }
    yield from _serve(ECHO_AGENT, "local", env)


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
    """Our dev server on the default embedded AWS (moto), push on, running `agents.scripted`.

    It also reads fasta2a's dialect of the 0.3 methods (``A2A_FASTA2A_COMPAT``), so fasta2a's
    client is in the matrix, and every other client shows that this changes nothing for them.
    """
    env = with_tests_on_path(A2A_PUSH_ENABLED="true", A2A_FASTA2A_COMPAT="true")
    yield from _serve(SCRIPTED_AGENT, "local", env)


def serve_reference() -> Iterator[str]:
    """a2a-sdk 1.3's own server (`clients.reference_server`): 1.0 JSON-RPC and REST, 0.3 compat."""
    command = [sys.executable, "-m", "clients.reference_server", "--port", "0"]
    yield from _run(ServerProcess("a2a-sdk 1.3 reference server", command, with_tests_on_path()))


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
