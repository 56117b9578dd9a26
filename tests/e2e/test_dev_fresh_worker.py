"""``a2a-serverless dev --worker fresh`` on real sockets: each turn runs on the agent imported anew
(the worker Lambda handler, fed by the emulator's pollers, on moto), so an agent that keeps a
conversation in a module-level dict visibly forgets it, as it would on Lambda, while the kit's
``ctx.ask`` example and pydantic-ai's history (the context store) carry on."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from dev_server import STARTUP_TIMEOUT, DevServer, with_tests_on_path

pytestmark = pytest.mark.e2e

FORGETFUL = "forgetful:agent"  # tests/forgetful.py: a module-level dict of what was said
MULTITURN = "a2a_core.examples.multiturn:agent"
PYDANTIC_AI = "a2a_core.examples.pydantic_ai_agent:agent"


def _rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer: dict[str, Any] = httpx.post(url, json=body, timeout=30).json()
    assert "error" not in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def _send(url: str, text: str, **fields: str) -> dict[str, Any]:
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}]}
    return _rpc(url, "message/send", {"message": {**message, **fields}, "configuration": {"blocking": True}})


def _said(task: dict[str, Any]) -> str:
    return "".join(part["text"] for part in task["status"]["message"]["parts"])


@pytest.fixture(scope="module", params=["warm", "fresh"])
def forgetful(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    server = DevServer(FORGETFUL, "local", with_tests_on_path(), ["--worker", request.param])
    try:
        yield request.param, server.wait_ready(STARTUP_TIMEOUT)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def fresh_server(request: pytest.FixtureRequest) -> Iterator[DevServer]:
    """A fresh-worker dev server per agent (named by the test's ``agent`` parameter)."""
    server = DevServer(request.param, "local", with_tests_on_path(), ["--worker", "fresh"])
    try:
        server.wait_ready(STARTUP_TIMEOUT)
        yield server
    finally:
        server.stop()


def test_a_module_level_dict_survives_a_warm_worker_and_not_a_fresh_one(forgetful: tuple[str, str]) -> None:
    mode, url = forgetful
    first = _send(url, "apples")
    second = _send(url, "pears", contextId=first["contextId"])
    assert _said(first) == "you said: apples"
    expected = {"warm": "you said: apples | pears", "fresh": "you said: pears"}
    assert _said(second) == expected[mode]


@pytest.mark.parametrize("fresh_server", [FORGETFUL], indirect=True)
def test_the_banner_says_the_worker_is_fresh(fresh_server: DevServer) -> None:
    assert f"Agent:      {FORGETFUL} (--agent), imported anew for each turn (--worker fresh)" in (
        fresh_server.output
    )


@pytest.mark.parametrize("fresh_server", [MULTITURN], indirect=True)
def test_the_kits_ask_example_completes_its_second_turn_on_a_fresh_worker(fresh_server: DevServer) -> None:
    url = fresh_server.base_url
    assert url is not None
    asked = _send(url, "otters")
    assert asked["status"]["state"] == "input-required"
    done = _send(url, "children", taskId=asked["id"], contextId=asked["contextId"])
    assert done["status"]["state"] == "completed"
    assert _said(done) == "Done: the draft is tailored for children."


@pytest.mark.parametrize("fresh_server", [PYDANTIC_AI], indirect=True)
def test_pydantic_ais_history_reaches_a_second_task_on_a_fresh_worker(fresh_server: DevServer) -> None:
    url = fresh_server.base_url
    assert url is not None
    first = _send(url, "my name is Ada")
    second = _send(url, "what is my name?", contextId=first["contextId"])
    assert _said(second) == 'You said "what is my name?". Before that: "my name is Ada".'
