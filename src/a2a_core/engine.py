"""The transport-agnostic request engine: what each A2A method does to tasks.

It validates what the schema cannot express, writes through the `TaskLedger`, hands turns to
the `Broker`, and never runs the agent itself (in Lambda, nothing may run after the response).
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass

from a2a_core.broker import Broker, RunOperation
from a2a_core.errors import (
    ERROR_CODE_KEY,
    ContentTypeNotSupportedError,
    InvalidAgentResponseError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
)
from a2a_core.ledger import Change, TaskLedger, status
from a2a_core.lifecycle import INTERRUPTED_STATES, RETURN_STATES, is_terminal
from a2a_core.records import Commit, MessageAdded, RunLease, trim_history
from a2a_core.types import (
    FilePart,
    Message,
    MessageSendParams,
    Role,
    Task,
    TaskIdParams,
    TaskQueryParams,
    TaskState,
)

_ID_NAMESPACE = uuid.UUID("6f1c2a52-61f4-4c1e-9d7e-2b1f3f0e9a11")


@dataclass(frozen=True)
class Caller:
    """Who is calling (tasks are created for, and isolated by, this principal), plus what the
    transport said about the call that methods need."""

    principal: str = "anonymous"
    last_event_id: str | None = None  # SSE Last-Event-ID header, for tasks/resubscribe


@dataclass(frozen=True)
class Submission:
    operation: RunOperation
    created: Task | None  # the new task as written; None for a continuation or a retry


@dataclass(frozen=True)
class EngineConfig:
    default_blocking: bool = True
    blocking_timeout: float = 25.0
    push_enabled: bool = False
    input_modes: tuple[str, ...] = ("text/plain", "application/json")
    output_modes: tuple[str, ...] = ("text/plain", "application/json")


class TaskEngine:
    def __init__(self, ledger: TaskLedger, broker: Broker, config: EngineConfig | None = None) -> None:
        self.ledger = ledger
        self.broker = broker
        self.config = config or EngineConfig()

    async def submit(self, params: MessageSendParams, caller: Caller) -> Submission:
        """Create or continue the task and queue its turn; shared by message/send and /stream."""
        message = params.message
        self._check_message(params)
        if message.task_id:
            return Submission(await self._continue(message), None)
        operation, created = await self._start(message, params, caller)
        return Submission(operation, created)

    async def send_message(self, params: MessageSendParams, caller: Caller) -> Task:
        configuration = params.configuration
        blocking = self.config.default_blocking
        if configuration is not None and configuration.blocking is not None:
            blocking = configuration.blocking
        history_length = configuration.history_length if configuration else None
        submission = await self.submit(params, caller)
        task_id = submission.operation.task_id
        if submission.created is not None and not blocking:
            return trim_history(submission.created, history_length)  # just written: no need to read it
        if blocking:
            await self.ledger.wait_for(task_id, RETURN_STATES, self.config.blocking_timeout)
        task = await self.ledger.load(task_id, history_length)
        if blocking:
            _raise_for_invalid_agent_response(task)
        return task

    async def get_task(self, params: TaskQueryParams, caller: Caller) -> Task:
        return await self.ledger.load(params.id, params.history_length)

    async def cancel_task(self, params: TaskIdParams, caller: Caller) -> Task:
        def decide(head: Commit) -> Change:
            if is_terminal(head.state):
                raise TaskNotCancelableError(
                    f"Task {head.task_id} is already {head.state.value} and cannot be canceled"
                )
            return Change([status(TaskState.canceled)])

        await self.ledger.write(params.id, decide)
        return await self.ledger.load(params.id)

    async def _start(
        self, message: Message, params: MessageSendParams, caller: Caller
    ) -> tuple[RunOperation, Task | None]:
        """Create the task (or find a retry's) and enqueue its turn; the task if it was created."""
        task_id = _derive_id(caller.principal, message)
        context_id = message.context_id or str(uuid.uuid5(_ID_NAMESPACE, f"context:{task_id}"))
        stored = message.model_copy(update={"task_id": task_id, "context_id": context_id})
        operation = RunOperation(task_id=task_id, run_id=message.message_id)
        task, created = await self.ledger.create(
            task_id=task_id,
            context_id=context_id,
            message=stored,
            run_id=operation.run_id,
            metadata=params.metadata,
        )
        # A retry finds its task; enqueue again while the turn is unclaimed, because the first
        # attempt may have died between storing the task and enqueuing it.
        if created or task.status.state == TaskState.submitted:
            await self.broker.enqueue(operation)
        return operation, task if created else None

    async def _continue(self, message: Message) -> RunOperation:
        task_id = message.task_id or ""
        operation = RunOperation(task_id=task_id, run_id=message.message_id)

        def decide(head: Commit) -> Change | None:
            if head.run is not None and head.run.run_id == message.message_id:
                return None  # a retry of the message that already continued the task
            if message.context_id and message.context_id != head.context_id:
                raise InvalidParamsError(
                    f"message.contextId {message.context_id!r} does not match task {task_id}'s "
                    f"context {head.context_id!r}"
                )
            if is_terminal(head.state):
                raise InvalidParamsError(
                    f"Task {task_id} is {head.state.value}; a terminal task cannot be continued. "
                    "Send the message without taskId to start a new task."
                )
            if head.state not in INTERRUPTED_STATES:
                raise InvalidParamsError(
                    f"Task {task_id} is {head.state.value}; only a task in input-required or "
                    "auth-required accepts another message"
                )
            stored = message.model_copy(update={"context_id": head.context_id})
            return Change(
                [MessageAdded(seq=0, message=stored), status(TaskState.working)],
                run=RunLease(run_id=operation.run_id),
            )

        commit = await self.ledger.write(task_id, decide)
        if commit is None:  # a retry: enqueue again only while nobody has claimed the turn
            head = await self.ledger.head(task_id)
            run = head.run
            unclaimed = run is not None and run.run_id == operation.run_id and run.lease_until is None
            if not unclaimed or is_terminal(head.state):
                return operation
        await self.broker.enqueue(operation)
        return operation

    def _check_message(self, params: MessageSendParams) -> None:
        message = params.message
        if message.role != Role.user:
            raise InvalidParamsError("message.role must be 'user' when a client sends a message")
        configuration = params.configuration
        push_requested = configuration is not None and configuration.push_notification_config is not None
        if push_requested and not self.config.push_enabled:
            raise PushNotificationNotSupportedError(
                "This agent does not send push notifications (capabilities.pushNotifications is false)"
            )
        accepted = configuration.accepted_output_modes if configuration else None
        if accepted and not any(_mode_matches(a, m) for a in accepted for m in self.config.output_modes):
            raise ContentTypeNotSupportedError(
                f"None of acceptedOutputModes {accepted} is produced by this agent "
                f"(it produces {list(self.config.output_modes)})",
                data={"supportedOutputModes": list(self.config.output_modes)},
            )
        inputs = self.config.input_modes
        for part in message.parts:
            mime = part.file.mime_type if isinstance(part, FilePart) else None
            if mime and not any(_mode_matches(mime, m) for m in inputs):
                raise ContentTypeNotSupportedError(
                    f"File part type {mime!r} is not accepted (accepted: {list(inputs)})",
                    data={"supportedInputModes": list(inputs)},
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


def _derive_id(principal: str, message: Message) -> str:
    """A task id that is the same for a client's retry of the same message, and only for it."""
    parts = message.model_dump_json(include={"parts"})
    key = "\x00".join((principal, message.context_id or "", message.message_id, parts))
    return str(uuid.uuid5(_ID_NAMESPACE, hashlib.sha256(key.encode()).hexdigest()))


def _mode_matches(offered: str, supported: str) -> bool:
    """Media-type match with ``*`` wildcards on either side (``text/*``, ``*/*``)."""
    offered_type, offered_sub = _split_mode(offered)
    supported_type, supported_sub = _split_mode(supported)
    types_match = "*" in (offered_type, supported_type) or offered_type == supported_type
    subs_match = "*" in (offered_sub, supported_sub) or offered_sub == supported_sub
    return types_match and subs_match


def _split_mode(mode: str) -> tuple[str, str]:
    kind, _, sub = mode.split(";")[0].strip().lower().partition("/")
    return kind, sub or "*"
