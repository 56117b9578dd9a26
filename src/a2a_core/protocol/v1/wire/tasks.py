"""1.0 Task, its status and state, the stream events, and the StreamResponse / SendMessageResponse oneofs."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BeforeValidator, StrictBool, model_validator

from a2a_core.protocol.v1.wire.parts import Artifact, Message
from a2a_core.protocol.v1.wire.protojson import (
    NonNegativeInt64,
    ProtoModel,
    RequiredStr,
    Str,
    Struct,
    Timestamp,
    check_oneof,
    enum_parser,
)


class TaskState(StrEnum):
    TASK_STATE_UNSPECIFIED = "TASK_STATE_UNSPECIFIED"
    TASK_STATE_SUBMITTED = "TASK_STATE_SUBMITTED"
    TASK_STATE_WORKING = "TASK_STATE_WORKING"
    TASK_STATE_COMPLETED = "TASK_STATE_COMPLETED"
    TASK_STATE_FAILED = "TASK_STATE_FAILED"
    TASK_STATE_CANCELED = "TASK_STATE_CANCELED"
    TASK_STATE_INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
    TASK_STATE_REJECTED = "TASK_STATE_REJECTED"
    TASK_STATE_AUTH_REQUIRED = "TASK_STATE_AUTH_REQUIRED"


TaskStateField = Annotated[TaskState, BeforeValidator(enum_parser(TaskState))]


class TaskStatus(ProtoModel):
    # TASK_STATE_UNSPECIFIED is accepted and sent: it is how the domain's "unknown" state travels.
    state: TaskStateField
    message: Message | None = None
    timestamp: Timestamp | None = None


class Task(ProtoModel):
    id: RequiredStr
    status: TaskStatus
    context_id: Str = None
    artifacts: list[Artifact] | None = None
    history: list[Message] | None = None
    metadata: Struct | None = None
    # A2A 1.1 (draft, field 7 / 5 / 7): set only in answers to 1.1 requests.
    generation: NonNegativeInt64 | None = None


class TaskStatusUpdateEvent(ProtoModel):
    task_id: RequiredStr
    context_id: RequiredStr
    status: TaskStatus
    metadata: Struct | None = None
    # A2A 1.1 (draft, field 7 / 5 / 7): set only in answers to 1.1 requests.
    generation: NonNegativeInt64 | None = None


class TaskArtifactUpdateEvent(ProtoModel):
    task_id: RequiredStr
    context_id: RequiredStr
    artifact: Artifact
    # Presence is kept (false is sent when set) so domain events survive a round trip.
    append: StrictBool | None = None
    last_chunk: StrictBool | None = None
    metadata: Struct | None = None
    # A2A 1.1 (draft, field 7 / 5 / 7): set only in answers to 1.1 requests.
    generation: NonNegativeInt64 | None = None


STREAM_PAYLOAD = ("task", "message", "status_update", "artifact_update")


class StreamResponse(ProtoModel):
    """One stream event (and one 1.0 push notification body): exactly one member is set."""

    task: Task | None = None
    message: Message | None = None
    status_update: TaskStatusUpdateEvent | None = None
    artifact_update: TaskArtifactUpdateEvent | None = None

    @model_validator(mode="after")
    def _one_payload(self) -> StreamResponse:
        check_oneof(self, "payload", STREAM_PAYLOAD)
        return self


class SendMessageResponse(ProtoModel):
    task: Task | None = None
    message: Message | None = None

    @model_validator(mode="after")
    def _one_payload(self) -> SendMessageResponse:
        check_oneof(self, "payload", ("task", "message"))
        return self
