"""`a2a-serverless dev` on real sockets: its doors, and the banner's curl in every auth mode.

A page on another origin cannot run tasks (a blind text/plain POST, a rebound host name), a page
allowed with ``--cors-origin`` gets CORS, and the printed "Try it" command works as printed,
run by a real shell and curl, whatever the auth mode.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_core.auth.testing import LocalIssuer
from dev_server import STARTUP_TIMEOUT, DevServer

pytestmark = pytest.mark.e2e

ECHO = "a2a_core.examples.echo:agent"
MULTITURN = "a2a_core.examples.multiturn:agent"
APP = "https://app.example.com:3000"
MESSAGE = {"role": "user", "messageId": "m-doors", "parts": [{"kind": "text", "text": "hi"}]}
SEND = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": MESSAGE}})


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    server = DevServer(MULTITURN, "local", args=["--cors-origin", APP], console_script=True)
    try:
        yield server.wait_ready(STARTUP_TIMEOUT)
    finally:
        server.stop()


def test_a_rebound_host_name_gets_no_answer(guarded: str) -> None:
    port = httpx.URL(guarded).port
    response = httpx.post(
        guarded,
        content=SEND,
        headers={"host": f"attacker.example:{port}", "content-type": "application/json"},
    )
    assert response.status_code == 421
    assert "DNS rebinding" in response.json()["error"]["message"]
    assert httpx.get(f"{guarded}healthz", headers={"host": f"localhost:{port}"}).status_code == 200


def rpc(url: str, method: str, params: dict[str, Any], **headers: str) -> httpx.Response:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return httpx.post(url, content=body, headers={"content-type": "application/json", **headers}, timeout=10)


def test_a_blind_cross_origin_post_runs_nothing(guarded: str) -> None:
    task = rpc(guarded, "message/send", {"message": {**MESSAGE, "messageId": "m-first"}}).json()["result"]
    assert task["status"]["state"] == "input-required"  # the multiturn agent asks who the audience is
    reply = {"message": {**MESSAGE, "messageId": "m-reply", "taskId": task["id"]}}
    # What any web page can send without asking first: text/plain, no preflight.
    refused = rpc(
        guarded, "message/send", reply, origin="https://evil.example", **{"content-type": "text/plain"}
    )
    assert refused.status_code == 403
    assert "--cors-origin https://evil.example" in refused.json()["error"]["message"]
    after = rpc(guarded, "tasks/get", {"id": task["id"]}).json()["result"]
    assert after == task  # not continued: the reply never reached the agent


def test_an_allowed_origin_gets_a_preflight_and_cors_headers(guarded: str) -> None:
    preflight = httpx.options(
        guarded,
        headers={
            "origin": APP,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == APP
    response = httpx.post(
        guarded,
        content=SEND.replace("m-doors", "m-cors"),
        headers={"origin": APP, "content-type": "application/a2a+json"},
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == APP


# The banner's curl, run as printed.

CURL = shutil.which("curl")


def try_it(output: str) -> str:
    line = next(line for line in output.splitlines() if line.startswith("Try it:"))
    return line.removeprefix("Try it:").strip()


def run_printed(command: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    assert CURL is not None, "curl is needed (make test installs it)"
    done = subprocess.run(  # noqa: S603 (the command the server printed, run as a developer would)
        ["/bin/sh", "-c", command],
        capture_output=True,
        text=True,
        timeout=30,
        env=dict(env or {}),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def banner_curl_result(
    env: Mapping[str, str], args: list[str], shell_env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    server = DevServer(ECHO, "memory", env, args, console_script=True)
    try:
        server.wait_ready(STARTUP_TIMEOUT)
        command = try_it(server.output)
        path = {"PATH": str(Path(CURL or "/usr/bin/curl").parent)}
        return run_printed(command, {**path, **(shell_env or {})})
    finally:
        server.stop()


def jwt_env(issuer: LocalIssuer, directory: Path) -> dict[str, str]:
    settings = issuer.settings(directory)
    return {
        "A2A_JWT_ISSUER": settings["jwt_issuer"],
        "A2A_JWT_AUDIENCE": settings["jwt_audience"],
        "A2A_JWT_JWKS_FILE": settings["jwt_jwks_file"],
        "A2A_JWT_ALGORITHMS": json.dumps(settings["jwt_algorithms"]),
    }


@pytest.mark.parametrize(
    "mode",
    ["none", "api_key (printed key)", "api_key (A2A_API_KEYS)", "jwt (local issuer)", "jwt (configured)"],
)
def test_the_banner_curl_works_in_every_auth_mode(mode: str, tmp_path: Path) -> None:
    env: dict[str, str] = {}
    args: list[str] = []
    shell_env: dict[str, str] = {}
    if mode.startswith("api_key"):
        args = ["--auth", "api_key"]
        if "A2A_API_KEYS" in mode:
            env["A2A_API_KEYS"] = json.dumps(
                {"ci": "ci-key-0123456789abcdef", "other": "other-key-0123456789"}
            )
    elif mode.startswith("jwt"):
        args = ["--auth", "jwt"]
        if "configured" in mode:
            issuer = LocalIssuer()
            env = jwt_env(issuer, tmp_path)
            shell_env["A2A_TOKEN"] = issuer.mint("alice")
    answer = banner_curl_result(env, args, shell_env)
    assert answer["result"]["status"]["state"] == "completed", answer
    assert answer["result"]["status"]["message"]["parts"][0]["text"] == "Echo: hello"
