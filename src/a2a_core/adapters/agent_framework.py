"""Microsoft Agent Framework conversations that outlive the worker: `ContextHistoryProvider`
(``pip install 'a2a-serverless[agent-framework]'``).

Agent Framework's A2A executor (``agent_framework.a2a.A2AExecutor``, which the kit hosts
unchanged) opens a session per task, with the task's contextId as its ``session_id``, and an
agent's history providers load and save that session's messages (Agent Framework's own extension
point for message storage: ``HistoryProvider``). This one keeps them in the kit's session store
(`a2a_core.core.turn.session_store`: DynamoDB when deployed, moto in ``dev``, memory in the tests),
under the task owner's space, so the next task of a context, run by any worker, continues the
conversation, and a caller reusing another's contextId reads nothing of theirs::

    agent = client.as_agent(name="...", instructions="...", context_providers=[ContextHistoryProvider()])
    executor = A2AExecutor(agent)

Each message is one entry of the session's append-only log, so a turn costs writes for what it
adds, and a load reads the newest ``window`` messages at most. A retried turn (its worker died
after saving) replaces what the interrupted attempt saved: every entry names the turn and the
attempt that wrote it, and a load keeps a turn's entries of its latest attempt only, so no
message is seen twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from agent_framework import HistoryProvider, Message
from pydantic import JsonValue

from a2a_core.adapters.a2a_sdk.turn import current_turn
from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.session_scope import SessionScope, current_session_scope

# The session keys of this framework's conversations, in an owner's space.
FRAMEWORK = "agent-framework"
# How many of a conversation's newest messages a load reads (the model's context is bounded too).
WINDOW = 500
# How many turns' save counts a provider remembers (a turn saves once or a few times, then ends).
SAVES_KEPT = 1024


class ContextHistoryProvider(HistoryProvider):
    """An Agent Framework ``HistoryProvider`` keeping each A2A context's messages in the kit's
    session store (see the module docstring)."""

    DEFAULT_SOURCE_ID: ClassVar[str] = "a2a_context"

    def __init__(self, source_id: str | None = None, *, window: int = WINDOW, **options: Any) -> None:
        """``window``: the most messages a load reads (the newest); ``options``: the
        ``HistoryProvider`` flags (``store_inputs``, ``store_outputs``, ...)."""
        if window < 1:
            raise ValueError(f"window must be at least 1, not {window}")
        super().__init__(source_id or self.DEFAULT_SOURCE_ID, **options)
        self.window = window
        self._saved: dict[tuple[str, int], int] = {}  # (run, attempt) -> messages saved by it

    async def get_messages(
        self, session_id: str | None, *, state: dict[str, Any] | None = None, **kwargs: Any
    ) -> list[Message]:
        """The session's messages, oldest first: the newest ``window``, each once."""
        ctx, scope = _turn()
        entries = await scope.store.read_entries(_key(scope, session_id, ctx), limit=self.window, newest=True)
        return [Message.from_dict(value) for value in latest_attempts(entries, ctx)]

    async def save_messages(
        self,
        session_id: str | None,
        messages: Sequence[Message],
        *,
        state: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Append ``messages`` to the session, each as one entry naming this turn's attempt."""
        ctx, scope = _turn()
        key, attempt = _key(scope, session_id, ctx), _attempt(ctx)
        counted = (ctx.run_id, attempt)
        start = self._saved.get(counted, 0)
        for index, message in enumerate(messages, start):
            value = {"run": ctx.run_id, "attempt": attempt, "n": index, "message": message.to_dict()}
            # The same write id in a resend of it: the store keeps a lost answer's entry once.
            await ctx.attempt.call(scope.store.append(key, value, write_id=f"{ctx.run_id}:{attempt}:{index}"))
        self._saved[counted] = start + len(messages)
        if len(self._saved) > SAVES_KEPT:  # a warm worker serves many turns: forget the oldest
            del self._saved[next(iter(self._saved))]


def latest_attempts(entries: Sequence[Any], ctx: TaskContext) -> list[JsonValue]:
    """The messages of ``entries`` (oldest first) a load returns: of each turn, those its latest
    attempt wrote, each once; none of an earlier attempt of the running turn."""
    latest: dict[str, int] = {ctx.run_id: _attempt(ctx)}
    for entry in entries:
        run, attempt = entry.value["run"], entry.value["attempt"]
        if run != ctx.run_id:
            latest[run] = max(latest.get(run, attempt), attempt)
    seen: set[tuple[str, int, int]] = set()
    kept: list[JsonValue] = []
    for entry in entries:
        value = entry.value
        mark = (value["run"], value["attempt"], value["n"])
        if value["attempt"] == latest[value["run"]] and mark not in seen:
            seen.add(mark)
            kept.append(value["message"])
    return kept


def _turn() -> tuple[TaskContext, SessionScope]:
    ctx, scope = current_turn(), current_session_scope()
    if ctx is None or scope is None:
        raise RuntimeError(
            "ContextHistoryProvider keeps an A2A context's messages: it runs in the kit's worker, "
            "inside the turn of an executor the kit hosts (a2a-serverless dev, the worker Lambda, "
            "a2a_core.testing)"
        )
    return ctx, scope


def _key(scope: SessionScope, session_id: str | None, ctx: TaskContext) -> str:
    # A2AExecutor names the session by the contextId; a session it did not name is the context's.
    return scope.key(FRAMEWORK, session_id or ctx.context_id)


def _attempt(ctx: TaskContext) -> int:
    lease = ctx.attempt.lease
    return lease.attempt if lease is not None else 0
