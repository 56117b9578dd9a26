"""1.0 request messages of the task and message operations, and the ListTasks response."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field, StrictBool

from a2a_core.protocol.v1.wire.parts import Message
from a2a_core.protocol.v1.wire.protojson import (
    Int32,
    NonNegativeInt32,
    NonNegativeInt64,
    ProtoModel,
    RequiredStr,
    Str,
    StrList,
    Struct,
    Timestamp,
)
from a2a_core.protocol.v1.wire.push import TaskPushNotificationConfig
from a2a_core.protocol.v1.wire.tasks import Task, TaskState, TaskStateField


class SendMessageConfiguration(ProtoModel):
    accepted_output_modes: StrList = None
    task_push_notification_config: TaskPushNotificationConfig | None = None
    history_length: NonNegativeInt32 | None = None
    # Presence is kept: an explicit false asks to block, an absent one leaves it to the server.
    return_immediately: StrictBool | None = None
    # A2A 1.1 (draft, field 5): honoured for 1.1 requests only.
    if_generation_match: NonNegativeInt64 | None = None


class SendMessageRequest(ProtoModel):
    message: Message
    tenant: Str = None
    configuration: SendMessageConfiguration | None = None
    metadata: Struct | None = None


class GetTaskRequest(ProtoModel):
    id: RequiredStr
    tenant: Str = None
    history_length: NonNegativeInt32 | None = None
    # A2A 1.1 (draft, field 4): honoured for 1.1 requests only.
    current_generation: NonNegativeInt64 | None = None


def _unset_if_unspecified(state: TaskState | None) -> TaskState | None:
    # The enum's default (0) on a plain enum field means "no filter".
    return None if state is TaskState.TASK_STATE_UNSPECIFIED else state


def _unset_if_unrecognized(value: object) -> object:
    # @a2a-js/sdk 1.3 (ts-proto) sends "UNRECOGNIZED" when a caller lists tasks without a status
    # filter (its toJSON writes any non-zero enum, and an absent one is undefined): that is no filter.
    return None if value == "UNRECOGNIZED" else value


class ListTasksRequest(ProtoModel):
    tenant: Str = None
    context_id: Str = None
    status: Annotated[
        TaskStateField | None,
        BeforeValidator(_unset_if_unrecognized),
        AfterValidator(_unset_if_unspecified),
    ] = None
    page_size: Annotated[Int32, Field(ge=1, le=100)] | None = None
    page_token: Str = None
    history_length: NonNegativeInt32 | None = None
    status_timestamp_after: Timestamp | None = None
    include_artifacts: StrictBool | None = None


class ListTasksResponse(ProtoModel):
    """Every field is REQUIRED and always sent: ``nextPageToken`` is ``""`` on the last page."""

    tasks: list[Task]
    next_page_token: str
    page_size: Int32
    total_size: Int32


class CancelTaskRequest(ProtoModel):
    id: RequiredStr
    tenant: Str = None
    metadata: Struct | None = None


class SubscribeToTaskRequest(ProtoModel):
    id: RequiredStr
    tenant: Str = None
    # This kit's cursor for the A2A 1.1 draft (which names none for subscriptions yet): the last
    # generation the client saw; honoured for 1.1 requests only.
    current_generation: NonNegativeInt64 | None = None


class GetExtendedAgentCardRequest(ProtoModel):
    tenant: Str = None
