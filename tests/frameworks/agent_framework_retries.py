"""An Agent Framework agent on the kit's ``ContextHistoryProvider`` whose turn is retried, run in the
agent-framework environment (``python agent_framework_retries.py``): prints one JSON object.

Task 1's first attempt saves its messages and then loses its worker (it parks, and its lease runs
out); the next delivery runs the turn again, as a new attempt. Task 2 of the same context must see
task 1's exchange once (the model is told how many messages it got), and task 1's retried attempt
none of its interrupted attempt's; another caller naming the same contextId, none of them. The
kit's real engine, worker and in-memory stores; only the clock is the script's.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from agent_framework import BaseChatClient, ChatResponse, Content, ContextProvider, Message
from agent_framework.a2a import A2AExecutor

from a2a_core.adapters.a2a_sdk.turn import current_turn
from a2a_core.adapters.agent_framework import FRAMEWORK, ContextHistoryProvider
from a2a_core.adapters.resolve import resolve_agent
from a2a_core.compose import build_server
from a2a_core.core.broker import InMemoryBroker, RunOperation
from a2a_core.core.caller import Caller
from a2a_core.core.requests import SendRequest, TaskQuery
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.core.turn.context_store import InMemoryContextStore
from a2a_core.core.turn.session_scope import SessionScope
from a2a_core.core.turn.session_store import InMemorySessionStore
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import Message as A2AMessage
from a2a_core.domain import Role, TextPart
from a2a_core.settings import Settings

ANONYMOUS = Caller()
seen: list[list[str]] = []  # what the model got, per call


class Counting(BaseChatClient):
    """Says how many messages it got, and notes their texts."""

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any
    ) -> Any:
        seen.append([f"{m.role}: {m.text}" for m in messages])
        return _answer(f"I got {len(messages)} messages.")


async def _answer(text: str) -> ChatResponse:
    return ChatResponse(messages=[Message(role="assistant", contents=[Content.from_text(text)])])


class DiesOnceSaved(ContextProvider):
    """After the history provider saved the turn, the first attempt of task 1 loses its worker."""

    def __init__(self) -> None:
        super().__init__("dies_once_saved")
        self.parked = asyncio.Event()

    async def after_run(self, **kwargs: Any) -> None:
        ctx = current_turn()
        assert ctx is not None
        lease = ctx.attempt.lease
        if ctx.text == "first" and lease is not None and lease.attempt == 1:
            self.parked.set()
            await asyncio.Event().wait()  # the worker is gone: nothing more of this attempt


async def main() -> dict[str, Any]:
    now = [1000.0]
    broker, sessions = InMemoryBroker(), InMemorySessionStore()
    settings = Settings(allow_unauthenticated=True)
    server = build_server(
        settings,
        store=InMemoryTaskStore(),
        broker=broker,
        context_store=InMemoryContextStore(),
        session_store=sessions,
    )
    dies = DiesOnceSaved()
    # after_run runs from the last provider to the first: the history is saved, then it dies.
    agent = Counting().as_agent(name="counter", context_providers=[dies, ContextHistoryProvider()])

    def worker() -> Worker:
        return Worker(
            server.ledger,
            resolve_agent(A2AExecutor(agent)),
            lease_seconds=60,
            clock=lambda: now[0],
            context_store=server.context_store,
            session_store=sessions,
        )

    async def send(text: str, context_id: str | None = None, caller: Caller = ANONYMOUS) -> RunOperation:
        message = A2AMessage(
            role=Role.user, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()), context_id=context_id
        )
        await server.engine.submit(SendRequest(message, blocking=False), caller)
        operation = await broker.receive(timeout=0)
        assert operation is not None
        return operation

    operation = await send("first")
    # The first attempt parks for good, writing nothing more, as a worker that was killed.
    lost = asyncio.create_task(worker().handle(operation))
    await dies.parked.wait()
    now[0] += 61  # its lease runs out: the delivery that comes back runs attempt 2
    await worker().handle(operation)
    first = await server.engine.get_task(TaskQuery(operation.task_id, None), Caller())
    later = await send("second", first.context_id)
    await worker().handle(later)
    second = await server.engine.get_task(TaskQuery(later.task_id, None), Caller())
    # Another caller naming the same contextId has a conversation of its own.
    await worker().handle(await send("third", first.context_id, Caller("mallory")))
    lost.cancel()  # what it writes now is refused: its turn was taken over
    await asyncio.gather(lost, return_exceptions=True)
    log = await sessions.read_entries(_session_key(first.context_id))
    return {
        "states": [first.status.state.value, second.status.state.value],
        "seen": seen,
        "entries": [(e.value["attempt"], e.value["message"]["role"]) for e in log],
    }


def _session_key(context_id: str) -> str:
    """The session key of an anonymous caller's context (the provider's, in the shared space)."""
    return SessionScope(InMemorySessionStore()).key(FRAMEWORK, context_id)


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
