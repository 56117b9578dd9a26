"""The A2A 1.1 draft against the real dev server over real sockets, on both 1.0 bindings: a
client that follows a task by long-poll GetTask sees every generation advance, a stale
conditional send is refused (-32010 / 409) and a current one continues the task, a stream carries
consecutive generations, and 1.0 answers carry none."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from a2a_core.cli.commands import next_state
from a2a_core.client.client import A2AClient
from a2a_core.core.backoff import Backoff
from a2a_core.domain import Task, TaskState

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

V1_1 = {"A2A-Version": "1.1"}
V1_0 = {"A2A-Version": "1.0"}
TEST_LIMIT = 30.0  # seconds: a request that is never answered fails the test instead of hanging


def _message(text: str, **fields: Any) -> dict[str, Any]:
    return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}], **fields}


class Binding:
    """One 1.0 binding, spoken as 1.1 (or as 1.0 with ``headers``)."""

    def __init__(self, client: httpx.AsyncClient, name: str) -> None:
        self.client, self.name = client, name

    async def send(self, params: dict[str, Any], headers: dict[str, str] = V1_1) -> httpx.Response:
        if self.name == "JSONRPC":
            return await self._rpc("SendMessage", params, headers)
        return await self.client.post("/message:send", json=params, headers=headers)

    async def get(self, task_id: str, generation: int | None = None, headers: dict[str, str] = V1_1) -> Any:
        if self.name == "JSONRPC":
            params: dict[str, Any] = {"id": task_id}
            if generation is not None:
                params["currentGeneration"] = str(generation)
            response = await self._rpc("GetTask", params, headers)
            return response.json()["result"]
        query = "" if generation is None else f"?currentGeneration={generation}"
        return (await self.client.get(f"/tasks/{task_id}{query}", headers=headers)).json()

    async def _rpc(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return await self.client.post("/", json=body, headers=headers)


def _task(binding: Binding, response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    body = response.json()
    return (body["result"] if binding.name == "JSONRPC" else body)["task"]


async def _until(binding: Binding, task_id: str, state: str) -> list[int]:
    """Follow the task by long poll until ``state``; the generations seen, in order."""
    seen = [int((await binding.get(task_id))["generation"])]
    while True:
        task = await binding.get(task_id, seen[-1])
        if int(task["generation"]) != seen[-1]:
            seen.append(int(task["generation"]))
        if task["status"]["state"] == state:
            return seen


@pytest.fixture(params=["JSONRPC", "HTTP+JSON"])
async def binding(scripted_server: str, request: pytest.FixtureRequest) -> Any:
    async with httpx.AsyncClient(base_url=scripted_server, timeout=TEST_LIMIT) as client:
        yield Binding(client, request.param)


async def test_a_client_follows_a_task_by_long_poll_and_continues_it_conditionally(binding: Binding) -> None:
    with anyio.fail_after(TEST_LIMIT):
        created = _task(
            binding,
            await binding.send({"message": _message("wait"), "configuration": {"returnImmediately": True}}),
        )
        assert created["generation"] == "1"
        task_id = created["id"]
        seen = await _until(binding, task_id, "TASK_STATE_INPUT_REQUIRED")
        assert seen[-1] == 3  # submitted, the worker's working, input-required
        assert seen == sorted(set(seen))

        stale = {"message": _message("go on", taskId=task_id), "configuration": {"ifGenerationMatch": "2"}}
        refused = await binding.send(stale)
        if binding.name == "JSONRPC":
            assert refused.json()["error"]["code"] == -32010
        else:
            assert refused.status_code == 409
            assert refused.json()["error"]["details"][0]["reason"] == "TASK_GENERATION_MISMATCH"
        assert (await binding.get(task_id))["generation"] == "3"  # nothing was written

        current = {
            "message": _message("go on", taskId=task_id),
            "configuration": {"ifGenerationMatch": "3", "returnImmediately": True},
        }
        # 4: the reply's working status (5 already, if the worker claimed the turn before the read).
        assert int(_task(binding, await binding.send(current))["generation"]) in (4, 5)
        seen = await _until(binding, task_id, "TASK_STATE_COMPLETED")
        assert seen[-1] == 6  # the reply's working, the worker's, completed

        older = await binding.get(task_id, headers=V1_0)
        assert "generation" not in json.dumps(older)
        assert older["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_a_stream_carries_consecutive_generations(binding: Binding) -> None:
    with anyio.fail_after(TEST_LIMIT):
        params: dict[str, Any] = {"message": _message("hello")}
        body: dict[str, Any] = params
        path = "/message:stream"
        if binding.name == "JSONRPC":
            path, body = "/", {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": params}
        async with binding.client.stream("POST", path, json=body, headers=V1_1) as response:
            lines = [line async for line in response.aiter_lines() if line.startswith("data:")]
        events = [json.loads(line[5:]) for line in lines]
        events = [event.get("result", event) for event in events]
        generations = [int(next(iter(event.values()))["generation"]) for event in events]
        assert generations == list(range(generations[0], generations[0] + len(generations)))
        task_id = events[0]["task"]["id"]
        assert (await binding.get(task_id))["generation"] == str(generations[-1])


@pytest.mark.parametrize("binding_name", ["jsonrpc", "rest"])
async def test_the_kit_client_waits_by_long_poll_where_the_card_offers_1_1(
    scripted_server: str, binding_name: str
) -> None:
    client = A2AClient(scripted_server, binding=binding_name)
    try:
        with anyio.fail_after(TEST_LIMIT):
            started = await client.send_message("wait", blocking=False)
            assert isinstance(started, Task)
            assert started.generation is None  # a 1.0 answer: no generation
            task = started
            notes: list[str] = []
            while task.status.state != TaskState.input_required:
                waited = await next_state(client, task, Backoff(), notes.append)
                assert waited.generation is not None
                assert waited.generation > (task.generation or 0)
                task = waited
            assert task.generation == 3
    finally:
        await client.aclose()


def test_get_wait_follows_the_task_to_its_end(scripted_server: str) -> None:
    sent = _cli("send", scripted_server, "wait", "--no-stream", "--no-interactive", "--json")
    assert sent.returncode == 0, sent.stderr
    task_id = json.loads(sent.stdout.splitlines()[-1])["id"]
    reply = _cli("send", scripted_server, "go on", "--task", task_id, "--no-stream", "--no-interactive")
    assert reply.returncode == 0, reply.stderr
    waited = _cli("get", scripted_server, task_id, "--wait", "--json")
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout.splitlines()[-1])["status"]["state"] == "completed"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    script = shutil.which("a2a-serverless", path=str(Path(sys.executable).parent))
    assert script is not None
    # Our own console script with test-chosen arguments: no untrusted input reaches it.
    return subprocess.run([script, *args], capture_output=True, text=True, timeout=60, check=False)  # noqa: S603
