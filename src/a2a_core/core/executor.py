"""The agent author's API: an executor runs one turn of a task through a `TaskContext`.

A turn starts when a client sends a message (a new task, or a reply to input-required) and ends
when the agent completes, fails, rejects, asks for input or auth, or the task is canceled. The
context is the only handle the agent needs: it reads the message and history, and each call that
emits something is one durable write to the task log that clients see at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias, TypeVar

from pydantic import JsonValue

from a2a_core.core.changes import Change, status
from a2a_core.core.context_store import NO_CONTEXT, ContextStore, ContextUpdate
from a2a_core.core.errors import (
    InvalidAgentResponseError,
    InvalidTransitionError,
    StoreUnavailableError,
    TaskCanceledError,
    TurnLostError,
)
from a2a_core.core.ledger import TaskLedger
from a2a_core.core.lifecycle import RETURN_STATES, is_terminal
from a2a_core.core.records import ANONYMOUS_OWNER, ArtifactUpdated, Commit, RunLease
from a2a_core.core.snapshots import Folding
from a2a_core.domain import Artifact, DataPart, FilePart, Message, Part, Role, Task, TaskState, TextPart

Content: TypeAlias = str | Part | Sequence[Part] | dict[str, Any]
T = TypeVar("T")
_ARTIFACT_IDS = uuid.UUID("0b6f4a8e-6f57-4d0e-a1a3-4e9b8f2f7c11")  # namespace of default artifact ids

# The recent messages a turn starts with in `TaskContext.history` (one read of the task, whatever
# its length); `TaskContext.load_history` reads further back.
HISTORY_WINDOW = 10


class TaskContext:
    """Everything an agent sees and does during one turn of one task.

    Emitting methods raise `TaskCanceledError` when a client canceled the task meanwhile; let it
    propagate (the worker records nothing more) or catch it to clean up. They raise its subclass
    `TurnLostError` when this run no longer owns the turn (another worker took it over after this
    one's lease ran out): nothing more of this run is written, and the worker stops it.

    A call that could not reach the task store raises `StoreUnavailableError` (after a few tries):
    the turn is then run again from the start, by a later delivery, and what this run wrote is
    replaced by what the next attempt writes. Whatever the agent does with the error, the worker
    learns of it from the context (`interruption`), never fails the task for it, and stops the run.

    ``task`` is the task as this turn found it, with its last `HISTORY_WINDOW` messages (and at
    least the message that started the turn); `load_history` reads as many as you need.

    The agent's own state for the whole conversation (e.g. its framework's message list) lives in
    the context store: `load_context`, `update_context` and `change_context`.
    """

    def __init__(
        self,
        ledger: TaskLedger,
        task: Task,
        run_id: str,
        *,
        head: Commit | None = None,
        context_store: ContextStore | None = None,
        folding: Folding | None = None,
        turn: str | None = None,
    ) -> None:
        """``head``: the worker's claim of the turn (its run names this attempt: every write is
        conditional on it); ``turn``: names this turn, the same in each of its attempts (the
        default ids of its artifacts are derived from it)."""
        self._ledger = ledger
        self._head = head  # our last write: the next one is decided on it without a read
        # The run lease of the claim: the turn and attempt this run writes for (its fence).
        self.lease: RunLease | None = head.run if head is not None else None
        self._attempt = None if self.lease is None else self.lease.attempt
        self._turn = turn or f"{task.id}:{run_id}"
        self._artifacts_named = 0
        # Why this run cannot go on (set once, by the first write or read that found out): the
        # turn lost or canceled, or the store unavailable. The worker waits on ``_interrupted``.
        self.interruption: Exception | None = None
        self._interrupted = asyncio.Event()
        # The task folded through ``head``, kept up to date with our writes: a write that is due
        # to carry a snapshot takes it from here instead of reading the log.
        self._folding = folding
        self._context_store = context_store
        self._context_version: int | None = None  # what `update_context` builds on
        self.task = task
        self.run_id = run_id
        self.ended = False

    @property
    def task_id(self) -> str:
        return self.task.id

    @property
    def _context_key(self) -> str:
        """Where this task's context is stored: per owner, since a contextId is client-chosen
        and another caller naming the same one must not read or change this caller's state."""
        owner = self._head.owner if self._head is not None else None
        if not owner or owner == ANONYMOUS_OWNER:  # without authentication there is one tenant
            return self.context_id
        return f"{hashlib.sha256(owner.encode()).hexdigest()[:32]}:{self.context_id}"

    @property
    def context_id(self) -> str:
        return self.task.context_id

    @property
    def history(self) -> list[Message]:
        """The task's recent messages as the turn started, oldest first: the last
        `HISTORY_WINDOW`, and at least back to the message that started this turn."""
        return list(self.task.history or [])

    async def load_history(self, limit: int | None = None) -> list[Message]:
        """The task's last ``limit`` messages as they are now, this turn's included (None: as
        many as the server returns to clients, its historyLength cap); one read, O(limit)."""
        return (await self._store_call(self._ledger.load(self.task_id, limit))).history or []

    @property
    def message(self) -> Message:
        """The user message that started this turn."""
        return next(m for m in reversed(self.history) if m.role == Role.user)

    @property
    def text(self) -> str:
        """The text parts of `message`, joined by newlines."""
        return "\n".join(p.text for p in self.message.parts if isinstance(p, TextPart))

    @property
    def context_store(self) -> ContextStore:
        """The store of per-context agent state; `RuntimeError` if the worker was given none."""
        if self._context_store is None:
            raise RuntimeError("this worker has no context store: pass context_store= to build_server/Worker")
        return self._context_store

    async def load_context(self) -> JsonValue | None:
        """The value stored for this task's context, or None; `update_context` builds on it."""
        stored = await self._store_call(self.context_store.load_context(self._context_key))
        self._context_version = NO_CONTEXT if stored is None else stored.version
        return None if stored is None else stored.value

    async def update_context(self, value: JsonValue) -> None:
        """Store ``value`` for this context, unless it changed since this turn's `load_context`.

        Raises `ContextConflictError` when another task of the context stored a value in between
        (its update is kept; load again and decide). Without a `load_context` first, ``value``
        replaces whatever is stored. To merge with concurrent writers, use `change_context`.
        """
        if self._context_version is None:
            await self.load_context()
        assert self._context_version is not None
        self._context_version = await self._store_call(
            self.context_store.update_context(
                self._context_key, value, expected_version=self._context_version
            )
        )

    async def change_context(self, fn: ContextUpdate) -> JsonValue:
        """Store ``fn(current value or None)`` for this context, retried on the fresh value after
        a concurrent write (so ``fn`` must only compute); returns what was stored."""
        stored = await self._store_call(self.context_store.update(self._context_key, fn))
        self._context_version = stored.version
        return stored.value

    async def is_canceled(self) -> bool:
        """Look at the task now (one read); True once a client has canceled it."""
        return (await self._store_call(self._ledger.head(self.task_id))).state == TaskState.canceled

    async def update(self, content: Content | None = None) -> None:
        """Report progress: a ``working`` status, optionally with a message to the client."""
        await self._status(TaskState.working, content)

    async def artifact(
        self,
        content: Content,
        *,
        artifact_id: str | None = None,
        name: str | None = None,
        description: str | None = None,
        append: bool = False,
        last_chunk: bool | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        """Emit an artifact, or one chunk of it (``append=True`` adds to ``artifact_id``).

        Returns the artifact id, so a streamed artifact is `artifact_id = await ctx.artifact(first)`
        followed by ``ctx.artifact(chunk, artifact_id=artifact_id, append=True)`` calls and a last
        one with ``last_chunk=True``. Without ``artifact_id`` the n-th new artifact of a turn gets
        the same id in every attempt of the turn: a retried turn's artifact replaces the one an
        interrupted attempt streamed, for clients that saw it too.
        """
        artifact = Artifact(
            artifact_id=artifact_id or self._next_artifact_id(),
            name=name,
            description=description,
            parts=to_parts(content),
            metadata=metadata,
        )
        return await self.emit_artifact(artifact, append=append, last_chunk=last_chunk)

    async def emit_artifact(
        self, artifact: Artifact, *, append: bool = False, last_chunk: bool | None = None
    ) -> str:
        """Emit a ready-made `Artifact` (or one chunk of it), as `artifact` does; returns its id."""
        event = ArtifactUpdated(seq=0, artifact=artifact, append=append, last_chunk=last_chunk)
        await self._write([event])
        return artifact.artifact_id

    async def complete(self, content: Content | None = None) -> None:
        """End the task successfully, optionally with a final message."""
        await self._status(TaskState.completed, content)

    async def ask(self, content: Content) -> None:
        """End the turn asking the client for input (``input-required``)."""
        await self._status(TaskState.input_required, content)

    async def require_auth(self, content: Content) -> None:
        """End the turn asking the client to authenticate (``auth-required``)."""
        await self._status(TaskState.auth_required, content)

    async def fail(self, content: Content | None = None, *, metadata: dict[str, Any] | None = None) -> None:
        """End the task as failed; ``metadata`` goes on the failure message."""
        await self._status(TaskState.failed, content, metadata)

    async def reject(self, content: Content | None = None) -> None:
        await self._status(TaskState.rejected, content)

    def agent_message(self, content: Content, metadata: dict[str, Any] | None = None) -> Message:
        return Message(
            role=Role.agent,
            parts=to_parts(content),
            message_id=str(uuid.uuid4()),
            task_id=self.task_id,
            context_id=self.context_id,
            metadata=metadata,
        )

    async def _status(
        self, state: TaskState, content: Content | None, metadata: dict[str, Any] | None = None
    ) -> None:
        message = None if content is None else self.agent_message(content, metadata)
        await self._write([status(state, message)])
        if state in RETURN_STATES:
            self.ended = True

    async def wait_interrupted(self) -> Exception:
        """Return `interruption` once this run cannot go on (the worker stops the agent then)."""
        await self._interrupted.wait()
        assert self.interruption is not None
        return self.interruption

    def _next_artifact_id(self) -> str:
        self._artifacts_named += 1
        return str(uuid.uuid5(_ARTIFACT_IDS, f"{self._turn}:{self._artifacts_named}"))

    def _interrupt(self, error: Exception) -> None:
        if self.interruption is None:
            self.interruption = error
            self._interrupted.set()

    async def _store_call(self, call: Awaitable[T]) -> T:
        """``call``, noting a store that is unavailable: the worker must know, whatever the agent
        does with the error."""
        try:
            return await call
        except StoreUnavailableError as error:
            self._interrupt(error)
            raise

    async def _write(self, events: list[Any]) -> Commit:
        if self.ended:
            raise InvalidTransitionError("This turn has ended; the agent cannot emit more")
        if self.interruption is not None:
            raise _again(self.interruption)

        def decide(head: Commit) -> Change:
            if head.state == TaskState.canceled:
                raise TaskCanceledError(f"Task {self.task_id} was canceled")
            # Another worker took this turn over (our lease ran out while we ran) and started a
            # new attempt, or the turn ended without us: a late writer must change nothing.
            run = head.run
            if (
                is_terminal(head.state)
                or run is None
                or run.run_id != self.run_id
                or (self._attempt is not None and run.attempt != self._attempt)
            ):
                raise TurnLostError(
                    f"Task {self.task_id}'s turn is no longer this run's ({head.state.value})"
                )
            return Change(events)

        previous = self._head
        try:
            commit = await self._ledger.write(self.task_id, decide, head=previous, folding=self._folding)
        except (TaskCanceledError, StoreUnavailableError) as error:
            self._interrupt(error)
            raise
        assert commit is not None
        if self._folding is not None and previous is not None and commit.first_seq == previous.next_seq:
            self._folding.apply(commit)
        else:  # another writer got in between: our fold is stale
            self._folding = None
        self._head = commit
        return commit


class AgentExecutor(ABC):
    """Runs the agent for one turn. Subclass it, or pass a plain async function instead.

    `execute` emits through the context and returns. If it returns without ending the turn the
    task is completed (with the returned content as the final message, if any); if it raises
    (anything, `asyncio.CancelledError` included), the task fails with a generic message (the
    exception is logged, never shown to clients). The errors the context raises are not the
    agent's failures, however it passes them on: `TaskCanceledError` (the task was canceled, or
    this run's turn was taken over) ends the run, `StoreUnavailableError` has the turn run again.
    `execute` runs in an asyncio task of its own, which the worker cancels when the turn's time
    is up or its run was interrupted.
    """

    @abstractmethod
    async def execute(self, ctx: TaskContext) -> Content | None: ...


AgentFunction = Callable[[TaskContext], Awaitable[Content | None]]


def _again(interruption: Exception) -> Exception:
    """The error a write gets once the run was interrupted (a fresh one: each raise its own)."""
    if isinstance(interruption, StoreUnavailableError):
        return StoreUnavailableError("An earlier call of this turn found the task store unavailable")
    if isinstance(interruption, TurnLostError):
        return TurnLostError(str(interruption))
    return TaskCanceledError(str(interruption))


class FunctionExecutor(AgentExecutor):
    def __init__(self, function: AgentFunction) -> None:
        self.function = function

    async def execute(self, ctx: TaskContext) -> Content | None:
        return await self.function(ctx)


def as_executor(agent: AgentExecutor | AgentFunction) -> AgentExecutor:
    if isinstance(agent, AgentExecutor):
        return agent
    if callable(agent):
        return FunctionExecutor(agent)
    raise TypeError(f"{agent!r} is neither an AgentExecutor nor an async function")


def to_parts(content: Content) -> list[Part]:
    """Parts from what an agent emits; raises `InvalidAgentResponseError` for anything else."""
    if isinstance(content, str):
        return [TextPart(text=content)]
    if isinstance(content, dict):
        return [DataPart(data=content)]
    if isinstance(content, TextPart | FilePart | DataPart):
        return [content]
    if isinstance(content, Sequence):
        parts = [p for p in content if isinstance(p, TextPart | FilePart | DataPart)]
        if len(parts) == len(content):
            return parts
    raise InvalidAgentResponseError(
        f"agent content must be str, dict, a Part or a list of Parts, not {type(content).__name__}"
    )
