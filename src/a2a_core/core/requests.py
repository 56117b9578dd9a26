"""Version-neutral requests and pages: what every protocol codec decodes into and encodes from.

The engine takes these, never a wire type of some generation, so one task log serves 0.2.5, 0.3
and 1.0 callers alike. ``None`` always means "the caller did not say" (the server's default
applies). ``tenant`` is the 1.0 routing field (``/{tenant}/...`` or a request's ``tenant``); the
0.x codecs leave it None.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from a2a_core.domain import Message, PushNotificationConfig, Task, TaskState


@dataclass(frozen=True)
class SendRequest:
    """Send a message: start a task, or continue the one ``message.task_id`` names."""

    message: Message
    # False: answer at once with the task as it is; True: wait for a terminal or interrupted state.
    blocking: bool | None = None
    history_length: int | None = None
    accepted_output_modes: tuple[str, ...] | None = None
    push_config: PushNotificationConfig | None = None
    metadata: dict[str, Any] | None = None
    tenant: str | None = None
    # A2A 1.1: continue the task only while its generation is this one (ignored for a new task).
    if_generation_match: int | None = None


@dataclass(frozen=True)
class TaskQuery:
    """Get one task, with at most ``history_length`` recent messages."""

    task_id: str
    history_length: int | None = None
    tenant: str | None = None
    # A2A 1.1: answer once the task's generation is past this one (or at the wait's bound).
    current_generation: int | None = None


@dataclass(frozen=True)
class TaskRef:
    """Cancel a task, or subscribe to it."""

    task_id: str
    metadata: dict[str, Any] | None = None
    tenant: str | None = None
    # A2A 1.1 subscriptions: the last generation the client saw; the stream replays what followed.
    after_generation: int | None = None


@dataclass(frozen=True)
class ListTasksQuery:
    """The caller's tasks, newest status first, filtered and paginated."""

    context_id: str | None = None
    state: TaskState | None = None
    page_size: int | None = None
    page_token: str | None = None
    history_length: int | None = None
    # Only tasks whose status timestamp is at or after this (UTC).
    status_timestamp_after: datetime | None = None
    include_artifacts: bool | None = None
    tenant: str | None = None


@dataclass(frozen=True)
class TaskPage:
    tasks: tuple[Task, ...]
    # "" on the last page.
    next_page_token: str
    page_size: int
    total_size: int


@dataclass(frozen=True)
class PushConfigRef:
    """Get or delete one push notification config of a task (0.x get: None = its first one)."""

    task_id: str
    config_id: str | None
    tenant: str | None = None


@dataclass(frozen=True)
class PushConfigQuery:
    """List a task's push notification configs."""

    task_id: str
    page_size: int | None = None
    page_token: str | None = None
    tenant: str | None = None


@dataclass(frozen=True)
class TaskPushConfig:
    """Create (or replace, by ``config.id``) a push notification config on a task."""

    task_id: str
    config: PushNotificationConfig
    tenant: str | None = None


@dataclass(frozen=True)
class PushConfigPage:
    configs: tuple[TaskPushConfig, ...]
    next_page_token: str = ""


@dataclass(frozen=True)
class ExtendedCardRequest:
    """Get the extended agent card (authenticated callers only)."""

    tenant: str | None = None
