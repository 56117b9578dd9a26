"""Per-caller isolation on DynamoDB (issue 22 item 8): refusing another caller's task makes the
same DynamoDB calls as refusing an id nobody created, one projected GetItem, and reads no item's
body, however large the task."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.compose import build_server
from a2a_core.compose.aws import build_broker, build_task_store
from a2a_core.core.caller import Caller
from a2a_core.core.errors import TaskNotFoundError
from a2a_core.core.requests import SendRequest, TaskQuery, TaskRef
from a2a_core.domain import Message, Role, TextPart
from a2a_core.emulator.moto_server import EmulatedAws
from aws_events import Deployment

ALICE, MALLORY = Caller(principal="alice"), Caller(principal="mallory")


class Calls:
    """The DynamoDB operations made, and the bytes of the responses they read."""

    def __init__(self, client: Any) -> None:
        self.made: list[tuple[str, int]] = []
        client.meta.events.register("after-call.dynamodb.*", self._after)

    def _after(self, http_response: Any, model: Any, **_: Any) -> None:
        self.made.append((model.name, len(http_response.content)))


def test_another_callers_large_task_is_refused_with_one_small_read(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    settings = Deployment(local_aws, aws_resources).settings
    store = build_task_store(settings, local_aws.clients)
    server = build_server(settings, store=store, broker=build_broker(settings, local_aws.clients))
    text = "x" * 200_000
    message = Message(role=Role.user, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()))
    task = asyncio.run(server.engine.send_message(SendRequest(message=message, blocking=False), ALICE))
    calls = Calls(local_aws.clients.dynamodb)
    made: dict[str, list[list[tuple[str, int]]]] = {}
    for task_id in (task.id, str(uuid.uuid4())):
        for refuse in (
            server.engine.get_task(TaskQuery(task_id), MALLORY),
            server.engine.cancel_task(TaskRef(task_id), MALLORY),
        ):
            calls.made.clear()
            with pytest.raises(TaskNotFoundError):
                asyncio.run(refuse)
            made.setdefault(task_id, []).append(list(calls.made))
    foreign, unknown = made.values()
    assert [[name for name, _ in refusal] for refusal in foreign] == [["GetItem"], ["GetItem"]]
    assert [[name for name, _ in refusal] for refusal in unknown] == [["GetItem"], ["GetItem"]]
    assert max(size for refusal in foreign for _, size in refusal) < 200  # the owner, not the body
