"""Per-caller isolation costs the same work whatever the id (issue 22 item 8): another caller's
task is refused after the same store calls as an id nobody created, and before any of its content
is read, on every surface that checks ownership. (Timing is `bench/isolation_timing.py`'s; here the
work itself is compared.)"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

import pytest

from a2a_core.compose import build_server
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.caller import Caller
from a2a_core.core.errors import TaskNotFoundError
from a2a_core.core.requests import PushConfigQuery, PushConfigRef, SendRequest, TaskQuery, TaskRef
from a2a_core.core.streams import TaskStreams
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.domain import Message, Role, TextPart
from a2a_core.server import AgentServer
from a2a_core.settings import Settings
from log_checks import CountingStore

pytestmark = pytest.mark.anyio

ALICE, MALLORY = Caller(principal="alice"), Caller(principal="mallory")
Surface = Callable[[AgentServer, str], Awaitable[object]]


def message(text: str, task_id: str | None = None) -> Message:
    return Message(role=Role.user, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()), task_id=task_id)


async def _subscribe(server: AgentServer, task_id: str) -> object:
    return await TaskStreams(server.engine).subscribe(TaskRef(task_id), MALLORY)


async def _continue(server: AgentServer, task_id: str) -> object:
    return await server.engine.send_message(
        SendRequest(message=message("and?", task_id), blocking=False), MALLORY
    )


def _push(server: AgentServer) -> object:
    assert server.push is not None
    return server.push


SURFACES: dict[str, Surface] = {
    "get": lambda server, task_id: server.engine.get_task(TaskQuery(task_id, history_length=5), MALLORY),
    "cancel": lambda server, task_id: server.engine.cancel_task(TaskRef(task_id), MALLORY),
    "subscribe": _subscribe,
    "continue": _continue,
    "push list": lambda server, task_id: _push(server).list(PushConfigQuery(task_id), MALLORY),  # type: ignore[attr-defined]
    "push get": lambda server, task_id: _push(server).get(PushConfigRef(task_id, "c1"), MALLORY),  # type: ignore[attr-defined]
}


@pytest.mark.parametrize("surface", SURFACES)
async def test_another_callers_task_costs_what_an_unknown_id_costs(surface: str) -> None:
    store = CountingStore(InMemoryTaskStore())
    settings = Settings(allow_unauthenticated=True, push_enabled=True, default_blocking=False)
    server = build_server(settings, store=store, broker=InMemoryBroker(), push_signers=[])
    big = "x" * 200_000  # a large task: reading it would cost more than reading nothing
    task = await server.engine.send_message(SendRequest(message=message(big), blocking=False), ALICE)
    costs = {}
    for task_id in (task.id, str(uuid.uuid4())):
        store.reset()
        with pytest.raises(TaskNotFoundError):
            await SURFACES[surface](server, task_id)
        costs[task_id] = dict(store.calls), store.commits
    foreign, unknown = costs.values()
    assert foreign == unknown == ({"owned": 1}, 0)  # one ownership check, no commit read
