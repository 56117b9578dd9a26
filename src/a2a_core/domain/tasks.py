"""Tasks, the messages that drive them, their artifacts, and the events a stream carries."""

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from a2a_core.domain._base import DEFER, A2ABaseModel
from a2a_core.domain.parts import Part


class TaskState(StrEnum):
    """Represents the possible states of a Task."""

    submitted = "submitted"
    working = "working"
    input_required = "input-required"
    completed = "completed"
    canceled = "canceled"
    failed = "failed"
    rejected = "rejected"
    auth_required = "auth-required"
    unknown = "unknown"


class Role(StrEnum):
    """Who sent a message."""

    user = "user"
    agent = "agent"


class Message(A2ABaseModel):
    """Represents a single message exchanged between user and agent."""

    kind: Literal["message"] = "message"
    message_id: str
    role: Role
    parts: list[Part] = Field(min_length=1)
    context_id: str | None = None
    task_id: str | None = None
    reference_task_ids: list[str] | None = None
    extensions: list[str] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatus(A2ABaseModel):
    """TaskState and accompanying message; `timestamp` stays the ISO 8601 string seen on the wire."""

    state: TaskState
    message: Message | None = None
    timestamp: str | None = None


class Artifact(A2ABaseModel):
    """Represents an artifact generated for a task."""

    artifact_id: str
    parts: list[Part]
    name: str | None = None
    description: str | None = None
    extensions: list[str] | None = None
    metadata: dict[str, Any] | None = None


class Task(A2ABaseModel):
    """A unit of work the agent performs, with its status, history and artifacts."""

    kind: Literal["task"] = "task"
    id: str
    context_id: str
    status: TaskStatus
    history: list[Message] | None = None
    artifacts: list[Artifact] | None = None
    metadata: dict[str, Any] | None = None
    # A2A 1.1's generation (the count of the task's mutations so far; None: not known). Never
    # dumped by the domain model: only the 1.1 codec writes it (`a2a_core.protocol.v1.codec`).
    generation: int | None = Field(default=None, exclude=True, repr=False)


class TaskStatusUpdateEvent(A2ABaseModel):
    """Sent by server during sendStream or subscribe requests."""

    kind: Literal["status-update"] = "status-update"
    task_id: str
    context_id: str
    status: TaskStatus
    final: bool
    metadata: dict[str, Any] | None = None
    # A2A 1.1's generation (the count of the task's mutations so far; None: not known). Never
    # dumped by the domain model: only the 1.1 codec writes it (`a2a_core.protocol.v1.codec`).
    generation: int | None = Field(default=None, exclude=True, repr=False)


class TaskArtifactUpdateEvent(A2ABaseModel):
    """Sent by server during sendStream or subscribe requests."""

    kind: Literal["artifact-update"] = "artifact-update"
    task_id: str
    context_id: str
    artifact: Artifact
    append: bool | None = None
    last_chunk: bool | None = None
    metadata: dict[str, Any] | None = None
    # A2A 1.1's generation (the count of the task's mutations so far; None: not known). Never
    # dumped by the domain model: only the 1.1 codec writes it (`a2a_core.protocol.v1.codec`).
    generation: int | None = Field(default=None, exclude=True, repr=False)


StreamEvent = Annotated[
    Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent, Field(discriminator="kind")
]

stream_event_adapter: TypeAdapter[Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent] = (
    TypeAdapter(StreamEvent, config=DEFER)
)
