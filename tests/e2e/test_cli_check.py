"""`a2a-serverless check URL` against `a2a-serverless dev` over real sockets: the report a user
reads after a deploy, its ``--json`` form and its exit code, for agents that pass, that ask for
input, that fail, behind API keys, without streaming, and with push delivered to the check's own
receiver."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dev_server import STARTUP_TIMEOUT, DevServer, with_tests_on_path
from e2e.test_cli import cli

pytestmark = pytest.mark.e2e

ECHO = "a2a_core.examples.echo:agent"
MULTITURN = "a2a_core.examples.multiturn:agent"
API_KEY = "check-key-0123456789abcdef"


def serve(
    agent: str, backend: str = "memory", env: dict[str, str] | None = None, *args: str
) -> Iterator[str]:
    server = DevServer(agent, backend, env, args)
    try:
        yield server.wait_ready(STARTUP_TIMEOUT)
    finally:
        server.stop()


def checks(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """``"<interface> <check>"`` (or the card check's name) -> (status, detail)."""
    return {
        " ".join(filter(None, (c["interface"], c["check"]))): (c["status"], c["detail"])
        for c in report["checks"]
    }


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    yield from serve(ECHO)


@pytest.fixture(scope="module")
def failing_url() -> Iterator[str]:
    yield from serve("agents:failing", "memory", with_tests_on_path())


@pytest.fixture(scope="module")
def api_key_url() -> Iterator[str]:
    yield from serve(
        ECHO, "memory", {"A2A_AUTH_MODE": "api_key", "A2A_API_KEYS": json.dumps({"ci": API_KEY})}
    )


@pytest.fixture(scope="module")
def no_streaming_url() -> Iterator[str]:
    yield from serve(ECHO, "memory", {"A2A_STREAMING_ENABLED": "false"})


@pytest.fixture(scope="module")
def signed_push_url() -> Iterator[str]:
    """The local backend (moto: KMS signs the card and the notifications), push on and allowed to
    reach loopback (the check's receiver), the multiturn agent, its public URL set as a deploy's is."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        "A2A_PUSH_ENABLED": "true",
        "A2A_PUSH_ALLOW_INSECURE_LOOPBACK": "true",
        "A2A_PUBLIC_URL": f"http://127.0.0.1:{port}/",
    }
    yield from serve(MULTITURN, "local", env, "--port", str(port))


def test_a_working_agent_passes_every_check_it_can_run(echo_url: str) -> None:
    human = cli("check", echo_url)
    assert human.code == 0, human.stdout + human.stderr
    lines = human.stdout.splitlines()
    assert lines[0] == f"Checking {echo_url}"
    # 11 skipped: 9, and the A2A 1.1 draft's two interfaces (checked as their 1.0 ones).
    assert lines[-1] == "15 ok, 0 failed, 11 skipped: every check passed"
    assert all(line.split()[0] in ("ok", "skipped") for line in lines[1:-1])
    assert "Traceback" not in human.stderr

    report = json.loads(cli("check", echo_url, "--json").stdout)
    assert report["passed"] is True
    found = checks(report)
    for interface in ("JSONRPC 1.0", "HTTP+JSON 1.0", "JSONRPC 0.3"):
        for name in ("send", "get", "stream", "cancel"):
            assert found[f"{interface} {name}"][0] == "ok", found[f"{interface} {name}"]
        assert (
            found[f"{interface} send"][1] == 'the task is completed: "Echo: Hello from a2a-serverless check"'
        )
        assert found[f"{interface} second turn"] == (
            "skipped",
            "the agent asked for nothing (its task completed on the first message)",
        )
        assert found[f"{interface} push"][0] == "skipped"
    assert found["JSONRPC 1.0 list"][0] == found["HTTP+JSON 1.0 list"][0] == "ok"
    assert found["JSONRPC 0.3 list"] == ("skipped", "ListTasks is A2A 1.0 only, not 0.3")
    assert found["card signature"][0] == "skipped"  # the memory backend has no signing key


def test_a_key_set_given_for_an_unsigned_card_fails_the_signature(echo_url: str, tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text('{"keys": []}', encoding="utf-8")
    run = cli("check", echo_url, "--card-jwks", str(jwks), "--json")
    assert run.code == 1
    assert checks(json.loads(run.stdout))["card signature"] == (
        "failed",
        "--card-jwks was given, but the card carries no signature",
    )


def test_an_agent_that_fails_its_tasks_fails_the_check(failing_url: str) -> None:
    run = cli("check", failing_url)
    assert run.code == 1
    assert run.stdout.splitlines()[-1].endswith("FAILED")
    report = json.loads(cli("check", failing_url, "--json").stdout)
    assert report["passed"] is False
    found = checks(report)
    assert found["JSONRPC 1.0 send"] == (
        "failed",
        'the task is failed: "The model provider is unreachable."',
    )
    assert found["HTTP+JSON 1.0 stream"][0] == "failed"
    assert found["JSONRPC 0.3 get"][0] == "ok"  # the endpoint itself works
    assert "failed   JSONRPC 1.0  send" in run.stdout


def test_api_keys_go_in_with_dash_h(api_key_url: str) -> None:
    refused = json.loads(cli("check", api_key_url, "--json").stdout)
    assert refused["passed"] is False
    assert checks(refused)["card"][0] == "ok"  # the card is public
    status, detail = checks(refused)["JSONRPC 1.0 send"]
    assert status == "failed"
    assert "401" in detail

    run = cli("check", api_key_url, "-H", f"x-api-key: {API_KEY}", "--json")
    assert run.code == 0, run.stdout
    assert json.loads(run.stdout)["failed"] == 0


def test_a_server_that_does_not_stream_says_so_and_skips_the_stream(no_streaming_url: str) -> None:
    run = cli("check", no_streaming_url, "--json")
    assert run.code == 0
    found = checks(json.loads(run.stdout))
    assert found["JSONRPC 1.0 stream"] == (
        "skipped",
        "the card says the agent does not stream (capabilities.streaming)",
    )


def test_nothing_listening_fails_the_card_and_stops() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    run = cli("check", url, "--json")
    assert run.code == 1
    report = json.loads(run.stdout)
    assert [(c["check"], c["status"]) for c in report["checks"]] == [("card", "failed")]
    assert "cannot reach" in report["checks"][0]["detail"]


def test_a_deployment_with_signing_and_push_passes_end_to_end(signed_push_url: str) -> None:
    run = cli("check", signed_push_url, "--webhook-listen", "127.0.0.1:0", "--timeout", "30", "--json")
    report = json.loads(run.stdout)
    assert run.code == 0, json.dumps(report["checks"], indent=1)
    found = checks(report)
    assert found["card signature"][0] == "ok"
    assert found["card signature"][1].startswith("verified with the agent's JWKS")
    for interface in ("JSONRPC 1.0", "HTTP+JSON 1.0", "JSONRPC 0.3"):
        status, detail = found[f"{interface} second turn"]
        assert status == "ok"
        assert detail.startswith('the agent asked "Who is the audience for this piece?"; on the reply')
        assert found[f"{interface} cancel"] == ("ok", "canceled, and a get finds it canceled")
        status, detail = found[f"{interface} push"]
        assert status == "ok"
        assert detail.endswith("arrived, signed by the agent, and verifies")
