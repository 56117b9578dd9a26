"""The pydantic-ai example agent behind the real dev server, driven by plain JSON-RPC over httpx.

The agent's model answers from the whole conversation, so a reply naming an earlier message
proves the history travelled through the context store between two tasks (on the "local"
backend: through DynamoDB on moto, written by the worker Lambda handler).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

TIMEOUT = httpx.Timeout(30.0)  # above the server's 25 s blocking timeout


def _message(text: str, context_id: str) -> dict[str, Any]:
    return {
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "contextId": context_id,
        "parts": [{"kind": "text", "text": text}],
    }


async def _call(http: httpx.AsyncClient, url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}
    response = await http.post(url, json=body)
    response.raise_for_status()
    answer: dict[str, Any] = response.json()
    assert "error" not in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def _reply(task: dict[str, Any]) -> str:
    return "".join(part["text"] for part in task["status"]["message"]["parts"])


def _artifact_text(task: dict[str, Any]) -> str:
    (artifact,) = task["artifacts"]
    assert artifact["name"] == "response"
    return "".join(part["text"] for part in artifact["parts"])


async def test_two_tasks_in_one_context_share_the_agents_history(pydantic_ai_server: str) -> None:
    context_id = str(uuid.uuid4())
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        first = await _call(
            http, pydantic_ai_server, "message/send", {"message": _message("my name is Ada", context_id)}
        )
        second = await _call(
            http, pydantic_ai_server, "message/send", {"message": _message("what is my name?", context_id)}
        )
        other = await _call(
            http, pydantic_ai_server, "message/send", {"message": _message("hello", str(uuid.uuid4()))}
        )
    assert [t["status"]["state"] for t in (first, second, other)] == ["completed"] * 3
    assert first["contextId"] == second["contextId"] == context_id
    assert first["id"] != second["id"]
    assert _reply(first) == 'You said "my name is Ada".'
    assert _reply(second) == 'You said "what is my name?". Before that: "my name is Ada".'
    assert _reply(other) == 'You said "hello".'  # another context, another history
    assert _artifact_text(second) == _reply(second)


async def test_the_reply_streams_as_chunks_of_one_artifact(pydantic_ai_server: str) -> None:
    params = {"message": _message("stream a reply of several words please", str(uuid.uuid4()))}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": params}
    headers = {"accept": "text/event-stream"}
    events: list[dict[str, Any]] = []
    async with (
        httpx.AsyncClient(timeout=TIMEOUT) as http,
        http.stream("POST", pydantic_ai_server, json=body, headers=headers) as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line.removeprefix("data:"))["result"])
    chunks = [e for e in events if e.get("kind") == "artifact-update"]
    assert len(chunks) > 1
    assert [bool(c.get("append")) for c in chunks] == [False] + [True] * (len(chunks) - 1)
    assert [bool(c.get("lastChunk")) for c in chunks] == [False] * (len(chunks) - 1) + [True]
    text = "".join(part["text"] for c in chunks for part in c["artifact"]["parts"])
    assert text == 'You said "stream a reply of several words please".'
    final = events[-1]
    assert final["kind"] == "status-update"
    assert final["final"] is True
    assert final["status"]["state"] == "completed"
