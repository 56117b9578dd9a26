"""Buffered streaming through the API Lambda handler (Mangum), fed API Gateway REST events.

API Gateway takes one response body, so the handler collects a stream's events until the final
one or until ``A2A_STREAM_BUFFER_SECONDS`` run out, and answers with them as one SSE body; the
client resubscribes with ``Last-Event-ID`` to get the rest. No worker runs in the API process:
the tests run the agent themselves, on the handler's in-memory store and queue.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
import uuid
from types import ModuleType
from typing import Any

import pytest

from a2a_core.compose import compose_worker
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.core.turn.worker import Worker
from agents import ARTIFACT, chunk_text, slow
from aws_events import EVENTS, api_context, load_function

BUDGET = 0.3


def load_handler(monkeypatch: pytest.MonkeyPatch, **env: str) -> ModuleType:
    return load_function(monkeypatch, "api", {"A2A_ALLOW_UNAUTHENTICATED": "true", **env})


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop) -> ModuleType:
    module = load_handler(monkeypatch, A2A_BACKEND="memory", A2A_STREAM_BUFFER_SECONDS=str(BUDGET))
    assert isinstance(module.adapters.store, InMemoryTaskStore)
    assert isinstance(module.adapters.broker, InMemoryBroker)
    return module


def worker_for(api: ModuleType) -> Worker:
    """A worker on the handler's own in-memory store, running `agents.slow`."""
    return compose_worker(api.adapters, slow)


def rest_event(body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    """The REST proxy event of tests/events for ``body``, with extra request headers."""
    event: dict[str, Any] = copy.deepcopy(json.loads((EVENTS / "apigw_rest_message_send.json").read_text()))
    event["body"] = json.dumps(body)
    for name, value in (headers or {}).items():
        event["headers"][name] = value
        event["multiValueHeaders"][name] = [value]
    event["headers"]["Accept"] = "text/event-stream"
    event["multiValueHeaders"]["Accept"] = ["text/event-stream"]
    return event


def stream_body(text: str) -> dict[str, Any]:
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}]}
    return {
        "jsonrpc": "2.0",
        "id": f"s-{uuid.uuid4()}",
        "method": "message/stream",
        "params": {"message": message},
    }


def resubscribe_body(task_id: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 42, "method": "tasks/resubscribe", "params": {"id": task_id}}


def sse_events(response: dict[str, Any], request_id: object) -> list[tuple[int, dict[str, Any]]]:
    """(id, result) of each event of a buffered SSE answer, checking the body's framing: blocks
    of ``id:`` and ``data:`` lines, each block ended by a blank line, each data a JSON-RPC
    response to ``request_id``."""
    assert response["statusCode"] == 200
    headers = {name.lower(): value for name, value in response["headers"].items()}
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["cache-control"] == "no-cache"
    assert response["isBase64Encoded"] is False
    body: str = response["body"]
    lines = body.splitlines()
    assert body == "" or (body.endswith(("\n\n", "\r\n\r\n")) and lines[-1] == "")
    events: list[tuple[int, dict[str, Any]]] = []
    block: dict[str, str] = {}
    for line in lines:
        if line:
            name, sep, value = line.partition(": ")
            assert sep, f"not an SSE field line: {line!r}"
            assert name in ("id", "data"), body
            assert name not in block, body
            block[name] = value
            continue
        assert set(block) == {"id", "data"}, body
        payload = json.loads(block["data"])
        assert payload["jsonrpc"] == "2.0"
        assert payload["id"] == request_id
        assert "error" not in payload, payload
        events.append((int(block["id"]), payload["result"]))
        block = {}
    assert not block, f"the body ends inside an event: {body!r}"
    return events


def call(api: ModuleType, body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = api.handler(rest_event(body, headers), api_context())
    return response


def describe(event: tuple[int, dict[str, Any]]) -> tuple[int, str, object]:
    seq, result = event
    if result["kind"] == "status-update":
        return seq, result["status"]["state"], result["final"]
    if result["kind"] == "artifact-update":
        assert result["artifact"]["name"] == ARTIFACT
        return seq, result["artifact"]["parts"][0]["text"], result.get("lastChunk")
    return seq, result["kind"], result["status"]["state"]


def expected_turn(text: str, chunks: int) -> list[tuple[int, str, object]]:
    """One `agents.slow` turn as streamed: the Task at 2, working, the chunks, completed."""
    return [
        (2, "task", "submitted"),
        (3, "working", False),
        *[(4 + i, chunk_text(text, i), i == chunks - 1) for i in range(chunks)],
        (4 + chunks, "completed", True),
    ]


def test_a_stream_with_no_worker_ends_at_the_budget_then_resubscribe_continues(
    api: ModuleType, loop: asyncio.AbstractEventLoop
) -> None:
    text = "chunks=3 delay=0"
    body = stream_body(text)
    started = time.monotonic()
    response = call(api, body)
    elapsed = time.monotonic() - started

    # Only the Task: nothing ran the agent, so the budget ran out before any final event.
    (snapshot,) = sse_events(response, body["id"])
    assert describe(snapshot) == (2, "task", "submitted")
    assert BUDGET <= elapsed < BUDGET + 2.0
    task_id = snapshot[1]["id"]

    # The worker Lambda runs the turn (on the same store, as it would on the same table).
    operation = loop.run_until_complete(api.adapters.broker.receive(timeout=0))
    assert operation is not None
    assert operation.task_id == task_id
    loop.run_until_complete(worker_for(api).handle(operation))

    again = resubscribe_body(task_id)
    started = time.monotonic()
    rest = sse_events(call(api, again, {"Last-Event-ID": str(snapshot[0])}), again["id"])
    assert time.monotonic() - started < BUDGET, "a stream that reached its final event answers at once"
    assert [describe(event) for event in rest] == expected_turn(text, 3)[1:]
    assert all(result["taskId"] == task_id for _, result in rest)

    # Once finished, resubscribing without Last-Event-ID is the final Task alone.
    (final,) = sse_events(call(api, resubscribe_body(task_id)), 42)
    assert describe(final) == (7, "task", "completed")


def test_a_running_turn_is_delivered_across_budgets_without_gap_or_duplicate(
    api: ModuleType, loop: asyncio.AbstractEventLoop
) -> None:
    text = "chunks=8 delay=0.1"
    body = stream_body(text)
    # The worker runs on the loop the handler drives, so the turn progresses during each call.
    worker = loop.create_task(run_next(api))
    responses = [sse_events(call(api, body), body["id"])]
    task_id = responses[0][0][1]["id"]
    while responses[-1][-1][1].get("final") is not True:
        assert len(responses) < 10, responses
        last_seen = responses[-1][-1][0]
        again = resubscribe_body(task_id)
        responses.append(sse_events(call(api, again, {"Last-Event-ID": str(last_seen)}), again["id"]))

    loop.run_until_complete(worker)
    assert len(responses) >= 2, "the turn (0.8 s) should outlast one 0.3 s budget"
    assert all(events for events in responses)
    delivered = [describe(event) for events in responses for event in events]
    assert delivered == expected_turn(text, 8)


async def run_next(api: ModuleType) -> None:
    operation = await api.adapters.broker.receive(timeout=1.0)
    assert operation is not None
    await worker_for(api).handle(operation)
