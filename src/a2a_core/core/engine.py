"""The transport-agnostic request engine: what each A2A method does to tasks.

It validates what the schema cannot express, writes through the `TaskLedger`, hands turns to
the `Broker`, and never runs the agent itself (in Lambda, nothing may run after the response).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.core.admission import check_message
from a2a_core.core.broker import Broker, RunOperation
from a2a_core.core.caller import Caller
from a2a_core.core.config import EngineConfig
from a2a_core.core.errors import (
    ERROR_CODE_KEY,
    InvalidAgentResponseError,
    InvalidParamsError,
    TaskGenerationMismatchError,
    TaskNotCancelableError,
    TaskTerminalError,
)
from a2a_core.core.listing.list_tasks import TaskLister
from a2a_core.core.listing.page_tokens import PageTokens
from a2a_core.core.requests import ListTasksQuery, SendRequest, TaskPage, TaskQuery, TaskRef
from a2a_core.core.tasklog.changes import CREATED_SEQ, Change, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.lifecycle import INTERRUPTED_STATES, RETURN_STATES, is_terminal
from a2a_core.core.tasklog.records import (
    Commit,
    MessageAdded,
    RunLease,
    TurnRequest,
    generation_of,
    reply_of,
    trim_history,
)
from a2a_core.domain import Message, Task, TaskState

if TYPE_CHECKING:
    from a2a_core.core.push_store import PushConfigs
    from a2a_core.domain import PushNotificationConfig

_ID_NAMESPACE = uuid.UUID("6f1c2a52-61f4-4c1e-9d7e-2b1f3f0e9a11")


@dataclass(frozen=True)
class Submission:
    operation: RunOperation
    created: Task | None  # the new task as written; None for a continuation or a retry
    # The last log sequence number this submission wrote (None for a retry that wrote nothing):
    # a stream starts from the task as of here, not from whatever the worker did meanwhile.
    seq: int | None = None


class TaskEngine:
    def __init__(
        self,
        ledger: TaskLedger,
        broker: Broker,
        config: EngineConfig | None = None,
        *,
        push: PushConfigs | None = None,
        page_tokens: PageTokens | None = None,
    ) -> None:
        """``push`` None: push notifications are off, and a message carrying a config is -32003.
        ``page_tokens`` None: ListTasks tokens are signed with a key of this process only."""
        self.ledger = ledger
        self.broker = broker
        self.config = config or EngineConfig()
        self.push = push
        self._lister = TaskLister(ledger, page_tokens or PageTokens(secrets.token_bytes(32)))

    async def submit(self, request: SendRequest, caller: Caller) -> Submission:
        """Create or continue the task and queue its turn; shared by sending and streaming."""
        message = request.message
        check_message(request, self.config, push_enabled=self.push is not None)
        push = request.push_config
        if push is not None and self.push is not None:
            # Refused before anything is written.
            await self.push.check(push, at="configuration.pushNotificationConfig")
        if message.task_id:
            operation, seq = await self._continue(request, push, caller)
            return Submission(operation, None, seq)
        operation, created = await self._start(message, request, caller, push)
        return Submission(operation, created, CREATED_SEQ if created is not None else None)

    async def answer_message(self, request: SendRequest, caller: Caller) -> Task | Message:
        """SendMessage's answer: the task, or the message the agent answered with instead of a
        task (`reply_of`); a retry of the same send gets the same answer."""
        task, reply = await self._send(request, caller)
        return task if reply is None else reply

    async def send_message(self, request: SendRequest, caller: Caller) -> Task:
        """The task as SendMessage leaves it (what a client gets is `answer_message`'s)."""
        return (await self._send(request, caller))[0]

    async def _send(self, request: SendRequest, caller: Caller) -> tuple[Task, Message | None]:
        blocking = self.config.default_blocking if request.blocking is None else request.blocking
        history_length = self.history_limit(request.history_length)
        submission = await self.submit(request, caller)
        task_id = submission.operation.task_id
        if submission.created is not None and not blocking:
            return trim_history(submission.created, history_length), None  # just written: no read
        if blocking:
            await self.ledger.wait_for(task_id, RETURN_STATES, self.config.blocking_timeout)
        view = await self.ledger.view(task_id, history_length=history_length, owner=caller.principal)
        answer = reply_of(view.head, submission.operation.run_id)
        if blocking and answer is None:
            _raise_for_invalid_agent_response(view.task)
        return view.task, answer

    async def get_task(self, query: TaskQuery, caller: Caller) -> Task:
        """The task; with ``current_generation`` (A2A 1.1's long poll), once its generation is
        past that one, or as it is when `EngineConfig.long_poll_timeout` runs out."""
        if query.current_generation is not None:
            await self.ledger.wait_past_generation(
                query.task_id, query.current_generation, self.config.long_poll_timeout, owner=caller.principal
            )
        return await self.ledger.load(
            query.task_id, self.history_limit(query.history_length), owner=caller.principal
        )

    async def list_tasks(self, query: ListTasksQuery, caller: Caller) -> TaskPage:
        """The caller's own tasks, most recently updated first (`a2a_core.core.listing.list_tasks`
        has the order, tokens and totals)."""
        return await self._lister.page(query, caller.principal, self.history_limit(query.history_length))

    async def cancel_task(self, ref: TaskRef, caller: Caller) -> Task:
        def decide(head: Commit) -> Change:
            if is_terminal(head.state):
                raise TaskNotCancelableError(
                    f"Task {head.task_id} is already {head.state.value} and cannot be canceled"
                )
            return Change([status(TaskState.canceled)])

        await self.ledger.write(ref.task_id, decide, owner=caller.principal)
        return await self.ledger.load(ref.task_id, self.history_limit(None), owner=caller.principal)

    def history_limit(self, requested: int | None) -> int:
        """How many recent messages a client gets: what it asked for, at most the cap (which also
        applies when it did not ask). historyLength is an upper bound, so clamping stays within
        the protocol where an error would break clients that ask for "everything"."""
        cap = self.config.max_history_length
        return cap if requested is None else min(requested, cap)

    async def _start(
        self, message: Message, request: SendRequest, caller: Caller, push: PushNotificationConfig | None
    ) -> tuple[RunOperation, Task | None]:
        """Create the task (or find a retry's) and enqueue its turn; the task if it was created."""
        task_id = _derive_id(caller.principal, message)
        context_id = message.context_id or str(uuid.uuid5(_ID_NAMESPACE, f"context:{task_id}"))
        stored = message.model_copy(update={"task_id": task_id, "context_id": context_id})
        operation = RunOperation(task_id=task_id, run_id=message.message_id)
        # Stored before the task: its first commit on the table's stream may already find it.
        await self._attach_push(task_id, message, push)
        task, created = await self.ledger.create(
            task_id=task_id,
            context_id=context_id,
            message=stored,
            run_id=operation.run_id,
            metadata=request.metadata,
            owner=caller.principal,
            request=_turn_request(request, caller, metadata=False),
        )
        # A retry finds its task; enqueue again while the turn is unclaimed, because the first
        # attempt may have died between storing the task and enqueuing it.
        if created or task.status.state == TaskState.submitted:
            await self.broker.enqueue(operation)
        return operation, task if created else None

    async def _continue(
        self, request: SendRequest, push: PushNotificationConfig | None, caller: Caller
    ) -> tuple[RunOperation, int | None]:
        message = request.message
        task_id = message.task_id or ""
        turn_request = _turn_request(request, caller, metadata=True)
        operation = RunOperation(task_id=task_id, run_id=message.message_id)

        def decide(head: Commit) -> Change | None:
            if head.run is not None and head.run.run_id == message.message_id:
                return None  # a retry of the message that already continued the task
            if message.context_id and message.context_id != head.context_id:
                raise InvalidParamsError(
                    f"message.contextId {message.context_id!r} does not match task {task_id}'s "
                    f"context {head.context_id!r}"
                )
            _check_generation(head, request.if_generation_match)  # the draft: before any other refusal
            if is_terminal(head.state):
                raise TaskTerminalError(
                    f"Task {task_id} is {head.state.value}; a terminal task cannot be continued. "
                    "Send the message without taskId to start a new task."
                )
            if head.state not in INTERRUPTED_STATES:
                raise InvalidParamsError(
                    f"Task {task_id} is {head.state.value}; only a task in input-required or "
                    "auth-required accepts another message"
                )
            stored = message.model_copy(update={"context_id": head.context_id})
            # Turns are counted from the head (0: a task whose first turn was not counted).
            turn = head.run.turn + 1 if head.run is not None and head.run.turn else 0
            return Change(
                [MessageAdded(seq=0, message=stored, request=turn_request), status(TaskState.working)],
                run=RunLease(run_id=operation.run_id, turn=turn, resumed_from=head.state),
            )

        added = None
        if push is not None and self.push is not None:
            # Stored before the continuation is written: a refused config (the per-task limit)
            # must leave the task waiting for input, not continued with no run queued. And a
            # continuation the task refuses must leave no config behind: checked first, and the
            # config taken back if the task moved on before the write (a stale ifGenerationMatch
            # included).
            decide(await self.ledger.head(task_id, owner=caller.principal))  # -32001 unless theirs
            added = await self._attach_push(task_id, message, push)
        try:
            commit = await self.ledger.write(task_id, decide, owner=caller.principal)
        except (InvalidParamsError, TaskTerminalError, TaskGenerationMismatchError):
            if added is not None and self.push is not None:
                await self.push.detach(task_id, added)
            raise
        if commit is None:  # a retry: enqueue again only while nobody has claimed the turn
            head = await self.ledger.head(task_id)
            run = head.run
            unclaimed = run is not None and run.run_id == operation.run_id and run.lease_until is None
            if not unclaimed or is_terminal(head.state):
                return operation, None
        await self.broker.enqueue(operation)
        return operation, None if commit is None else commit.last_seq

    async def _attach_push(
        self, task_id: str, message: Message, push: PushNotificationConfig | None
    ) -> str | None:
        """Store ``push`` for the task; the config's id if this call added it (None: nothing
        stored, or a config of that id was there already)."""
        if push is None or self.push is None:
            return None
        if push.id is None:
            # Derived, so a client's retry of the same message replaces its config, not adds one.
            config_id = uuid.uuid5(_ID_NAMESPACE, f"push:{task_id}:{message.message_id}")
            push = push.model_copy(update={"id": str(config_id)})
        assert push.id is not None
        existed = await self.push.is_stored(task_id, push.id)
        await self.push.attach(task_id, push)
        return None if existed else push.id


def _check_generation(head: Commit, expected: int | None) -> None:
    """TaskGenerationMismatchError unless ``expected`` (A2A 1.1's ifGenerationMatch; None: no
    condition) is the generation of ``head``, the commit the continuation would follow."""
    if expected is not None and expected != generation_of(head):
        raise TaskGenerationMismatchError(
            f"Task {head.task_id} is at generation {generation_of(head)}, not {expected}: read it again",
            data={"taskId": head.task_id, "currentGeneration": str(generation_of(head))},
        )


def _raise_for_invalid_agent_response(task: Task) -> None:
    """A blocking caller whose turn failed on a malformed agent result gets -32006, not a Task."""
    message = task.status.message
    metadata = (message.metadata if message else None) or {}
    if (
        task.status.state == TaskState.failed
        and metadata.get(ERROR_CODE_KEY) == InvalidAgentResponseError.code
    ):
        raise InvalidAgentResponseError(
            f"The agent returned an invalid response; task {task.id} failed", data={"taskId": task.id}
        )


def _turn_request(request: SendRequest, caller: Caller, *, metadata: bool) -> TurnRequest | None:
    """What the agent may read of the call besides its message (None: nothing); ``metadata``
    False where it is stored as the new task's metadata instead."""
    turn = TurnRequest(
        metadata=request.metadata if metadata else None,
        extensions=caller.extensions or None,
        accepted_output_modes=request.accepted_output_modes,
    )
    return turn if turn != TurnRequest() else None


def _derive_id(principal: str, message: Message) -> str:
    """A task id that is the same for a client's retry of the same message, and only for it."""
    parts = message.model_dump_json(include={"parts"})
    key = "\x00".join((principal, message.context_id or "", message.message_id, parts))
    return str(uuid.uuid5(_ID_NAMESPACE, hashlib.sha256(key.encode()).hexdigest()))
