"""`TaskContext`: everything an agent sees and does during one turn of one task.

A turn starts when a client sends a message (a new task, or a reply to input-required) and ends
when the agent completes, fails, rejects, asks for input or auth, answers with a message, or the
task is canceled. The context is the only handle the agent needs: it reads the message, the
history and what the call said, and each call that emits something is one durable write to the
task log that clients see at once (through `Attempt`, fenced to this attempt of the turn).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from a2a_core.core.errors import TaskNotFoundError
from a2a_core.core.tasklog.changes import status
from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.core.tasklog.records import (
    ANONYMOUS_OWNER,
    ArtifactUpdated,
    Commit,
    RunLease,
    StatusChanged,
    TurnRequest,
)
from a2a_core.core.turn.attempt import Attempt
from a2a_core.core.turn.content import Content, to_parts
from a2a_core.core.turn.context_store import ContextStore, ContextUpdate
from a2a_core.core.turn.conversation import Conversation
from a2a_core.core.turn.session_scope import SessionScope, owner_space
from a2a_core.core.turn.session_store import SessionStore
from a2a_core.domain import Artifact, Message, Role, Task, TaskState, TaskStatus, TextPart

if TYPE_CHECKING:
    from a2a_core.core.tasklog.ledger import TaskLedger
    from a2a_core.core.tasklog.snapshots import Folding

_ARTIFACT_IDS = uuid.UUID("0b6f4a8e-6f57-4d0e-a1a3-4e9b8f2f7c11")  # namespace of default artifact ids

# The recent messages a turn starts with in `TaskContext.history` (one read of the task, whatever
# its length); `TaskContext.load_history` reads further back.
HISTORY_WINDOW = 10


class TaskContext:
    """Everything an agent sees and does during one turn of one task.

    Emitting methods raise `TaskCanceledError` when a client canceled the task meanwhile; let it
    propagate (the worker records nothing more) or catch it to clean up. They raise its subclass
    `TurnLostError` when this run no longer owns the turn (another worker took it over after this
    one's lease ran out): nothing more of this run is written, and the worker stops it. A canceled
    task's run is stopped too when it emits nothing: the worker watches the task meanwhile.

    A call that could not reach the task store raises `StoreUnavailableError` (after a few tries):
    the turn is then run again from the start, by a later delivery, and what this run wrote is
    replaced by what the next attempt writes. Whatever the agent does with the error, the worker
    learns of it from the context (`interruption`), never fails the task for it, and stops the run.

    ``task`` is the task as this turn found it, with its last `HISTORY_WINDOW` messages (and at
    least the message that started the turn); `load_history` reads as many as you need. `turn`
    says which turn this is, counted durably (never count messages in `history`: it is a window).

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
        session_store: SessionStore | None = None,
        folding: Folding | None = None,
        turn_key: str | None = None,
        request: TurnRequest | None = None,
    ) -> None:
        """``head``: the worker's claim of the turn (its run names this attempt: every write is
        conditional on it); ``turn_key``: names this turn, the same in each of its attempts (the
        default ids of its artifacts are derived from it); ``request``: what the call that
        started the turn said besides its message."""
        self._ledger = ledger
        self.attempt = Attempt(ledger, task.id, run_id, head=head, folding=folding)
        self._owner = head.owner if head is not None else None
        self._turn_key = turn_key or f"{task.id}:{run_id}"
        self._artifacts_named = 0
        self._conversation = Conversation(context_store, task.context_id, self._owner, self.attempt)
        # Frameworks' sessions, in the space of the task's owner (never of the request's contextId).
        self.sessions: SessionScope | None = (
            None if session_store is None else SessionScope(session_store, owner_space(self._owner))
        )
        self._request = request or TurnRequest()
        self.task = task
        self.run_id = run_id

    # --- the turn ----------------------------------------------------------------------------

    @property
    def task_id(self) -> str:
        return self.task.id

    @property
    def context_id(self) -> str:
        return self.task.context_id

    @property
    def turn(self) -> int:
        """This turn's number in the task: 1 for the message that created it, 2 for the first
        reply to input-required (or auth-required), and so on; counted by the server as messages
        continue the task, so it is right however long the history is."""
        counted = self.lease.turn if self.lease is not None else 0
        if counted:
            return counted
        # A turn started before turns were counted: the user messages in the window say it.
        return max(1, sum(message.role == Role.user for message in self.history))

    @property
    def resumed_from(self) -> TaskState | None:
        """The state the task waited in when this turn's message came (``input-required`` or
        ``auth-required``); None on a task's first turn."""
        return self.lease.resumed_from if self.lease is not None else None

    @property
    def principal(self) -> str:
        """Who sent the message: the caller the task belongs to (``"anonymous"`` without auth)."""
        return self._owner or ANONYMOUS_OWNER

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The ``metadata`` the client sent with this turn's request (not the message's own)."""
        return self._request.metadata

    @property
    def extensions(self) -> tuple[str, ...]:
        """The extensions the client asked to use for this turn (its ``A2A-Extensions`` header)."""
        return self._request.extensions or ()

    @property
    def accepted_output_modes(self) -> tuple[str, ...] | None:
        """The media types the client said it accepts for this turn (None: it did not say)."""
        return self._request.accepted_output_modes

    @property
    def history(self) -> list[Message]:
        """The task's recent messages as the turn started, oldest first: the last
        `HISTORY_WINDOW`, and at least back to the message that started this turn."""
        return list(self.task.history or [])

    async def load_history(self, limit: int | None = None) -> list[Message]:
        """The task's last ``limit`` messages as they are now, this turn's included (None: as
        many as the server returns to clients, its historyLength cap); one read, O(limit)."""
        return (await self.attempt.call(self._ledger.load(self.task_id, limit))).history or []

    @property
    def message(self) -> Message:
        """The user message that started this turn."""
        return next(m for m in reversed(self.history) if m.role == Role.user)

    @property
    def text(self) -> str:
        """The text parts of `message`, joined by newlines."""
        return "\n".join(p.text for p in self.message.parts if isinstance(p, TextPart))

    async def referenced_tasks(self) -> list[Task]:
        """The tasks `message` refers to (its ``referenceTaskIds``) that belong to the same
        caller, with their history (up to the server's cap); unknown ones are left out."""
        found: list[Task] = []
        for task_id in self.message.reference_task_ids or []:
            try:
                found.append(await self.attempt.call(self._ledger.load(task_id, owner=self.principal)))
            except TaskNotFoundError:
                continue
        return found

    async def is_canceled(self) -> bool:
        """Look at the task now (one read); True once a client has canceled it."""
        return (await self.attempt.call(self._ledger.head(self.task_id))).state == TaskState.canceled

    # --- the context store: the agent's own state for the conversation ----------------------

    @property
    def context_store(self) -> ContextStore:
        """The store of per-context agent state; `RuntimeError` if the worker was given none."""
        return self._conversation.store

    async def load_context(self) -> JsonValue | None:
        """The value stored for this task's context, or None; `update_context` builds on it."""
        return await self._conversation.load()

    async def update_context(self, value: JsonValue) -> None:
        """Store ``value`` for this context, unless another task of the context stored a value
        since this turn's `load_context`: then `ContextConflictError` (see `Conversation.update`)."""
        await self._conversation.update(value)

    async def change_context(self, fn: ContextUpdate) -> JsonValue:
        """Store ``fn(current value or None)`` for this context, retried on the fresh value after
        a concurrent write (so ``fn`` must only compute); returns what was stored."""
        return await self._conversation.change(fn)

    # --- emitting ----------------------------------------------------------------------------

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
        await self.attempt.write(
            [ArtifactUpdated(seq=0, artifact=artifact, append=append, last_chunk=last_chunk)]
        )
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

    async def reply(self, content: Content | Message) -> None:
        """Answer with a message and no task: SendMessage returns this Message, a stream carries
        it alone, and a retry of the send gets the same one (A2A 1.0's direct response).

        That holds on a task's first turn while nothing else was emitted. Once the client has a
        task to follow (a later turn, or progress or artifacts already emitted), the reply
        completes that task with this message instead, as `complete` does. Either way the turn
        ends, and the task is kept, completed, with the message as its status message.
        """
        alone = self.turn == 1 and self.attempt.writes == 0
        message = self._as_message(content, task=not alone)
        await self.attempt.write(
            [
                StatusChanged(
                    seq=0, status=TaskStatus(state=TaskState.completed, message=message), reply=alone or None
                )
            ],
            ends=True,
        )

    async def emit_status(self, state: TaskState, message: Message | None = None) -> None:
        """Emit a ready-made status (an a2a-sdk executor's status update): ``state``, with
        ``message`` (its task and context ids filled in when missing); ending states end the
        turn, as the methods named for them do."""
        await self.attempt.write(
            [status(state, None if message is None else self._as_message(message))],
            ends=state in RETURN_STATES,
        )

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
        await self.attempt.write([status(state, message)], ends=state in RETURN_STATES)

    def _as_message(self, content: Content | Message, *, task: bool = True) -> Message:
        """``content`` as the agent's message of this turn; ``task`` False: one that names no task
        (the answer of a turn that keeps none)."""
        if not isinstance(content, Message):
            message = self.agent_message(content)
        else:
            message = content.model_copy(
                update={
                    "task_id": content.task_id or self.task_id,
                    "context_id": content.context_id or self.context_id,
                }
            )
        return message if task else message.model_copy(update={"task_id": None})

    def _next_artifact_id(self) -> str:
        self._artifacts_named += 1
        return str(uuid.uuid5(_ARTIFACT_IDS, f"{self._turn_key}:{self._artifacts_named}"))

    # --- what the worker reads (the rest is on `attempt`) ------------------------------------

    @property
    def lease(self) -> RunLease | None:
        """The run lease of this attempt (the worker's claim), or None outside a worker."""
        return self.attempt.lease

    @property
    def ended(self) -> bool:
        """Whether the turn's ending was written (nothing more may be emitted)."""
        return self.attempt.ended

    @property
    def interruption(self) -> Exception | None:
        """Why this run cannot go on (the turn lost or canceled, the store unavailable), or None."""
        return self.attempt.interruption
