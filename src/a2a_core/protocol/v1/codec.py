"""Domain objects (`a2a_core.domain`) <-> 1.0 wire objects (push configs: `push_codec`).

Decoding (wire -> domain) takes validated wire models. Encoding (domain -> wire) never fails on a
stored record: records written through 0.x may hold what 1.0 forbids (an empty ``messageId``,
bytes that are not base64, an unparsable status timestamp), so wire objects are assembled with
``model_construct`` and such values are sent as stored (or, for a timestamp, left out) rather
than making a task unreadable.

Parts: 1.0 data parts carry any JSON value, the domain's only objects, so a non-object value is
stored as ``{"value": ...}`` with part metadata ``data_part_compat: true`` and unwrapped on the
way out (a2a-sdk's convention for 0.3, so 0.3 clients see the same shape from either server).
``data_part_compat`` is therefore a reserved metadata key on data parts.
"""

from __future__ import annotations

from typing import Any

from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.domain import (
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    Message,
    Part,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a_core.protocol.v1.drafts import generation_out
from a2a_core.protocol.v1.wire import parts as w
from a2a_core.protocol.v1.wire import tasks as wt
from a2a_core.protocol.v1.wire.protojson import canonical_base64, format_timestamp, parse_timestamp

DATA_PART_COMPAT = "data_part_compat"

_ROLES = {Role.user: w.Role.ROLE_USER, Role.agent: w.Role.ROLE_AGENT}
_ROLES_BACK = {v: k for k, v in _ROLES.items()}
_STATES = {
    TaskState.unknown: wt.TaskState.TASK_STATE_UNSPECIFIED,
    TaskState.submitted: wt.TaskState.TASK_STATE_SUBMITTED,
    TaskState.working: wt.TaskState.TASK_STATE_WORKING,
    TaskState.completed: wt.TaskState.TASK_STATE_COMPLETED,
    TaskState.failed: wt.TaskState.TASK_STATE_FAILED,
    TaskState.canceled: wt.TaskState.TASK_STATE_CANCELED,
    TaskState.input_required: wt.TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.rejected: wt.TaskState.TASK_STATE_REJECTED,
    TaskState.auth_required: wt.TaskState.TASK_STATE_AUTH_REQUIRED,
}
_STATES_BACK = {v: k for k, v in _STATES.items()}

StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


def state_to_v1(state: TaskState) -> wt.TaskState:
    """Every domain state has a 1.0 name; ``unknown`` is TASK_STATE_UNSPECIFIED."""
    return _STATES[state]


def state_from_v1(state: wt.TaskState) -> TaskState:
    """TASK_STATE_UNSPECIFIED (a server that did not say) reads as ``unknown``."""
    return _STATES_BACK[state]


# --- parts, messages, artifacts --------------------------------------------------------------


def part_to_v1(part: Part) -> w.Part:
    if isinstance(part, TextPart):
        return w.Part.model_construct(
            text=part.text,
            metadata=part.metadata,
            media_type=part.media_type or None,
            filename=part.filename or None,
        )
    if isinstance(part, DataPart):
        return _data_part_to_v1(part)
    file = part.file
    common: dict[str, Any] = {
        "metadata": part.metadata,
        "media_type": file.mime_type or None,
        "filename": file.name or None,
    }
    if isinstance(file, FileWithBytes):
        return w.Part.model_construct(raw=_stored_base64(file.bytes), **common)
    return w.Part.model_construct(url=file.uri, **common)


def _data_part_to_v1(part: DataPart) -> w.Part:
    data: Any = part.data
    metadata = part.metadata
    if metadata is not None and metadata.get(DATA_PART_COMPAT) is True and set(data) == {"value"}:
        data = data["value"]
        metadata = {k: v for k, v in metadata.items() if k != DATA_PART_COMPAT} or None
    return w.Part.model_construct(
        data=data, metadata=metadata, media_type=part.media_type or None, filename=part.filename or None
    )


def _stored_base64(value: str) -> str:
    try:
        return canonical_base64(value)
    except ValueError:
        return value  # a 0.x client stored it unchecked; send it as it is rather than fail the read


def part_from_v1(part: w.Part) -> Part:
    content = part.content
    if content == "text":
        assert part.text is not None
        return TextPart(
            text=part.text, metadata=part.metadata, media_type=part.media_type, filename=part.filename
        )
    if content == "data":
        if isinstance(part.data, dict):
            return DataPart(
                data=part.data, metadata=part.metadata, media_type=part.media_type, filename=part.filename
            )
        metadata = {**(part.metadata or {}), DATA_PART_COMPAT: True}
        return DataPart(
            data={"value": part.data}, metadata=metadata, media_type=part.media_type, filename=part.filename
        )
    if content == "raw":
        assert part.raw is not None
        file: FileWithBytes | FileWithUri = FileWithBytes(
            bytes=part.raw, mime_type=part.media_type, name=part.filename
        )
    else:
        assert part.url is not None
        file = FileWithUri(uri=part.url, mime_type=part.media_type, name=part.filename)
    return FilePart(file=file, metadata=part.metadata)


def message_to_v1(message: Message) -> w.Message:
    return w.Message.model_construct(
        message_id=message.message_id,
        role=_ROLES[message.role],
        parts=[part_to_v1(part) for part in message.parts],
        context_id=message.context_id or None,
        task_id=message.task_id or None,
        metadata=message.metadata,
        extensions=message.extensions or None,
        reference_task_ids=message.reference_task_ids or None,
    )


def message_from_v1(message: w.Message) -> Message:
    return Message(
        message_id=message.message_id,
        role=_ROLES_BACK[message.role],
        parts=[part_from_v1(part) for part in message.parts],
        context_id=message.context_id,
        task_id=message.task_id,
        metadata=message.metadata,
        extensions=message.extensions,
        reference_task_ids=message.reference_task_ids,
    )


def artifact_to_v1(artifact: Artifact) -> w.Artifact:
    return w.Artifact.model_construct(
        artifact_id=artifact.artifact_id,
        parts=[part_to_v1(part) for part in artifact.parts],
        name=artifact.name or None,
        description=artifact.description or None,
        metadata=artifact.metadata,
        extensions=artifact.extensions or None,
    )


def artifact_from_v1(artifact: w.Artifact) -> Artifact:
    return Artifact(
        artifact_id=artifact.artifact_id,
        parts=[part_from_v1(part) for part in artifact.parts],
        name=artifact.name,
        description=artifact.description,
        metadata=artifact.metadata,
        extensions=artifact.extensions,
    )


# --- tasks and events ------------------------------------------------------------------------


def status_to_v1(status: TaskStatus) -> wt.TaskStatus:
    try:
        timestamp = parse_timestamp(status.timestamp) if status.timestamp else None
    except ValueError:
        timestamp = None  # not sendable as a proto Timestamp; it is optional
    return wt.TaskStatus.model_construct(
        state=state_to_v1(status.state),
        message=message_to_v1(status.message) if status.message else None,
        timestamp=timestamp,
    )


def status_from_v1(status: wt.TaskStatus) -> TaskStatus:
    return TaskStatus(
        state=state_from_v1(status.state),
        message=message_from_v1(status.message) if status.message else None,
        timestamp=format_timestamp(status.timestamp) if status.timestamp else None,
    )


def task_to_v1(task: Task, *, include_artifacts: bool = True) -> wt.Task:
    """``include_artifacts=False`` leaves ``artifacts`` out entirely (ListTasks' default)."""
    return wt.Task.model_construct(
        id=task.id,
        context_id=task.context_id or None,
        status=status_to_v1(task.status),
        artifacts=[artifact_to_v1(a) for a in task.artifacts]
        if include_artifacts and task.artifacts
        else None,
        history=[message_to_v1(m) for m in task.history] if task.history else None,
        metadata=task.metadata,
        generation=generation_out(task.generation),
    )


def task_from_v1(task: wt.Task) -> Task:
    """A task without ``contextId`` (not REQUIRED in 1.0) gets ``""``: the domain requires one."""
    return Task(
        id=task.id,
        context_id=task.context_id or "",
        status=status_from_v1(task.status),
        artifacts=[artifact_from_v1(a) for a in task.artifacts] if task.artifacts else None,
        history=[message_from_v1(m) for m in task.history] if task.history else None,
        metadata=task.metadata,
        generation=task.generation,
    )


def event_to_v1(event: StreamEvent) -> wt.StreamResponse:
    """A stream event (or push notification body) as a StreamResponse; 0.x ``final`` is dropped:
    in 1.0 the end of the stream says it."""
    if isinstance(event, Task):
        return wt.StreamResponse.model_construct(task=task_to_v1(event))
    if isinstance(event, Message):
        return wt.StreamResponse.model_construct(message=message_to_v1(event))
    if isinstance(event, TaskStatusUpdateEvent):
        update = wt.TaskStatusUpdateEvent.model_construct(
            task_id=event.task_id,
            context_id=event.context_id,
            status=status_to_v1(event.status),
            metadata=event.metadata,
            generation=generation_out(event.generation),
        )
        return wt.StreamResponse.model_construct(status_update=update)
    change = wt.TaskArtifactUpdateEvent.model_construct(
        task_id=event.task_id,
        context_id=event.context_id,
        artifact=artifact_to_v1(event.artifact),
        append=event.append,
        last_chunk=event.last_chunk,
        metadata=event.metadata,
        generation=generation_out(event.generation),
    )
    return wt.StreamResponse.model_construct(artifact_update=change)


def event_from_v1(response: wt.StreamResponse) -> StreamEvent:
    """The domain event of a StreamResponse; a status update is ``final`` when its state ends
    the caller's wait (terminal or interrupted), as the 0.x stream marked it."""
    if response.task is not None:
        return task_from_v1(response.task)
    if response.message is not None:
        return message_from_v1(response.message)
    if response.status_update is not None:
        update = response.status_update
        status = status_from_v1(update.status)
        return TaskStatusUpdateEvent(
            task_id=update.task_id,
            context_id=update.context_id,
            status=status,
            final=status.state in RETURN_STATES,
            metadata=update.metadata,
            generation=update.generation,
        )
    change = response.artifact_update
    assert change is not None
    return TaskArtifactUpdateEvent(
        task_id=change.task_id,
        context_id=change.context_id,
        artifact=artifact_from_v1(change.artifact),
        append=change.append,
        last_chunk=change.last_chunk,
        metadata=change.metadata,
        generation=change.generation,
    )


def send_response_to_v1(result: Task | Message) -> wt.SendMessageResponse:
    if isinstance(result, Task):
        return wt.SendMessageResponse.model_construct(task=task_to_v1(result))
    return wt.SendMessageResponse.model_construct(message=message_to_v1(result))
