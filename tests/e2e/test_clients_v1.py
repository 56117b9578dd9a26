"""A2A 1.0 clients against every server in `V1_SERVERS` (tests/e2e/conftest.py), over sockets.

Each server speaks 1.0 over JSON-RPC and HTTP+JSON at its base URL, lists both in its card's
``supportedInterfaces``, and runs the `agents.scripted` contract (``wait`` asks a question,
anything else streams ``chunks`` artifact chunks and completes with ``done: <text>``). The list
holds a2a-sdk 1.3's own server (the reference) and ours (`dev` on its default moto backend, push on), so every
scenario shows the two answer a 1.0 client alike.

- a2a-sdk 1.3, in-process, `create_client` preferring each binding in turn: send (blocking and
  ``returnImmediately``), get, list, stream, subscribe, cancel, push config CRUD, errors;
- @a2a-js/sdk 1.3 (node, `clients.drivers`), over both bindings: send (blocking and not), get,
  stream, list, cancel, subscribe, push config CRUD.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import pytest
from a2a.client import A2ACardResolver, BaseClient
from a2a.types import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Role,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskNotCancelableError,
    TaskNotFoundError,
    TaskPushNotificationConfig,
    TaskState,
)

from agents import ARTIFACT, WAIT_QUESTION
from clients import sdk13
from clients.drivers import A2A_JS
from clients.summaries import assert_completed_turn, assert_stream, chunks_text, fold, unique

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

HOOK = "http://127.0.0.1:9/a2a-hook"  # loopback (a dev server accepts it); nothing is delivered
POLL_SECONDS = 20.0
TRANSPORTS = {sdk13.JSONRPC: "JsonRpcTransport", sdk13.REST: "RestTransport"}
WORKING = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)


@pytest.fixture(params=list(TRANSPORTS), ids=["jsonrpc", "rest"])
def binding(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


def assert_done(task: Task, text: str, chunks: int) -> None:
    """``task`` is the scripted agent's finished turn for ``text``."""
    assert task.status.state == TaskState.TASK_STATE_COMPLETED, task
    assert sdk13.status_text(task) == f"done: {text}"
    assert [a.name for a in task.artifacts] == [ARTIFACT]
    assert "".join(sdk13.artifact_chunks(task, ARTIFACT)) == chunks_text(text, chunks)


# --- a2a-sdk 1.3 ---------------------------------------------------------------------------------


async def test_the_card_offers_both_1_0_bindings(v1_server: str, binding: str) -> None:
    async with httpx.AsyncClient(timeout=sdk13.HTTP_TIMEOUT) as http:
        card = await A2ACardResolver(http, v1_server).get_agent_card()
    # Major.minor: "1.0" and "1.0.0" are the same version to a client.
    offered = {(i.protocol_binding, i.protocol_version[:3]) for i in card.supported_interfaces}
    assert {(sdk13.JSONRPC, "1.0"), (sdk13.REST, "1.0")} <= offered
    async with sdk13.connect(v1_server, binding=binding) as client:
        assert sdk13.transport_name(client) == TRANSPORTS[binding]  # 1.0, not a compat transport


async def test_blocking_send_returns_the_finished_task(v1_server: str, binding: str) -> None:
    text = unique("chunks=2 delay=0 blocking")
    async with sdk13.connect(v1_server, binding=binding) as client:
        message = sdk13.user_message(text)
        task = await sdk13.send(client, message)
        assert_done(task, text, 2)
        assert task.history[0].message_id == message.message_id
        assert sdk13.text_of(task.history[0].parts) == text


async def test_return_immediately_then_get_until_done(v1_server: str, binding: str) -> None:
    text = unique("pause=0.3 chunks=1 non-blocking")
    async with sdk13.connect(v1_server, binding=binding) as client:
        task = await sdk13.send(client, sdk13.user_message(text), return_immediately=True)
        assert task.status.state in WORKING, task
        deadline = time.monotonic() + POLL_SECONDS
        while task.status.state != TaskState.TASK_STATE_COMPLETED and time.monotonic() < deadline:
            task = await client.get_task(GetTaskRequest(id=task.id))
        assert_done(task, text, 1)

        trimmed = await client.get_task(GetTaskRequest(id=task.id, history_length=1))
        assert len(trimmed.history) == 1
        assert trimmed.history[0].role == trimmed.history[-1].role


async def test_list_tasks_of_a_context_newest_first_in_pages(v1_server: str, binding: str) -> None:
    context_id = str(uuid.uuid4())
    async with sdk13.connect(v1_server, binding=binding) as client:
        sent = [
            await sdk13.send(
                client, sdk13.user_message(unique(f"chunks=1 delay=0 list-{i}"), context_id=context_id)
            )
            for i in range(3)
        ]
        newest_first = [task.id for task in reversed(sent)]

        listed = await client.list_tasks(ListTasksRequest(context_id=context_id))
        assert [task.id for task in listed.tasks] == newest_first
        assert all(task.status.state == TaskState.TASK_STATE_COMPLETED for task in listed.tasks)

        first = await client.list_tasks(ListTasksRequest(context_id=context_id, page_size=2))
        assert [task.id for task in first.tasks] == newest_first[:2]
        assert first.next_page_token
        rest = await client.list_tasks(
            ListTasksRequest(context_id=context_id, page_size=2, page_token=first.next_page_token)
        )
        assert [task.id for task in rest.tasks] == newest_first[2:]
        assert not rest.next_page_token


async def test_stream_delivers_the_task_then_its_updates_in_order(v1_server: str, binding: str) -> None:
    text = unique("chunks=3 delay=0 streamed")
    async with sdk13.connect(v1_server, binding=binding, streaming=True) as client:
        events = await sdk13.collect(client.send_message(sdk13.request(sdk13.user_message(text))))
    assert_done(sdk13.fold(events), text, 3)
    updates = events[1:]
    assert updates[-1].HasField("status_update")
    assert updates[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    pieces = [e.artifact_update for e in updates if e.HasField("artifact_update")]
    first = 3 - len(pieces)  # chunks the server folded into the first event, if any
    assert [(p.append, p.last_chunk) for p in pieces] == [(i > 0, i == 2) for i in range(first, 3)]


async def test_subscribe_to_a_running_task_gets_the_rest_of_it(v1_server: str, binding: str) -> None:
    # The task pauses first, so the subscription joins it while it runs (a finished task cannot
    # be subscribed to in 1.0).
    text = unique("pause=2 chunks=3 delay=0 subscribed")
    async with (
        sdk13.connect(v1_server, binding=binding) as sender,
        sdk13.connect(v1_server, binding=binding, streaming=True) as subscriber,
    ):
        task = await sdk13.send(sender, sdk13.user_message(text), return_immediately=True)
        assert task.status.state in WORKING
        events = await sdk13.collect(subscriber.subscribe(SubscribeToTaskRequest(id=task.id)))
    assert events[0].task.id == task.id
    assert_done(sdk13.fold(events), text, 3)


async def test_subscribe_to_a_waiting_task_streams_the_follow_up_to_completed(
    v1_server: str, binding: str
) -> None:
    # Spec 1.0.1 section 3.1.6 (and the TCK's STREAM-SUB-002): the stream stays open while the
    # task waits for input and ends at the terminal state the follow-up turn reaches.
    async with (
        sdk13.connect(v1_server, binding=binding) as sender,
        sdk13.connect(v1_server, binding=binding, streaming=True) as subscriber,
    ):
        waiting = await sdk13.send(sender, sdk13.user_message(unique("wait")))
        assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        events: list[StreamResponse] = []
        opened = asyncio.Event()

        async def read() -> None:
            async for event in subscriber.subscribe(SubscribeToTaskRequest(id=waiting.id)):
                events.append(event)
                opened.set()

        async with asyncio.timeout(POLL_SECONDS), asyncio.TaskGroup() as group:
            reader = group.create_task(read())
            await opened.wait()
            await asyncio.sleep(0.5)  # a stream that closes at the interruption would have by now
            assert not reader.done(), events
            reply = sdk13.user_message("go on", task_id=waiting.id, context_id=waiting.context_id)
            await sdk13.send(sender, reply, return_immediately=True)
        # The reader returned: the stream closed after the terminal status.
    assert events[0].task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert events[-1].HasField("status_update")
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    done = sdk13.fold(events)
    assert (done.id, sdk13.status_text(done)) == (waiting.id, "done: go on")


async def test_cancel_a_waiting_task_then_cancel_again(v1_server: str, binding: str) -> None:
    async with sdk13.connect(v1_server, binding=binding) as client:
        waiting = await sdk13.send(client, sdk13.user_message(unique("wait")))
        assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert sdk13.status_text(waiting) == WAIT_QUESTION

        canceled = await client.cancel_task(CancelTaskRequest(id=waiting.id))
        assert (canceled.id, canceled.status.state) == (waiting.id, TaskState.TASK_STATE_CANCELED)
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=waiting.id))
        later = await client.get_task(GetTaskRequest(id=waiting.id))
        assert later.status.state == TaskState.TASK_STATE_CANCELED


async def test_a_reply_continues_a_waiting_task(v1_server: str, binding: str) -> None:
    async with sdk13.connect(v1_server, binding=binding) as client:
        waiting = await sdk13.send(client, sdk13.user_message(unique("wait")))
        reply = sdk13.user_message("go on", task_id=waiting.id, context_id=waiting.context_id)
        done = await sdk13.send(client, reply)
    assert (done.id, done.status.state) == (waiting.id, TaskState.TASK_STATE_COMPLETED)
    assert sdk13.status_text(done) == "done: go on"
    assert [m.role for m in done.history if m.role == Role.ROLE_USER] == [Role.ROLE_USER] * 2


async def test_push_config_create_get_list_delete(v1_server: str, binding: str) -> None:
    async with sdk13.connect(v1_server, binding=binding) as client:
        task = await sdk13.send(client, sdk13.user_message(unique("chunks=1 delay=0 push")))
        await _push_config_crud(client, task.id)


async def _push_config_crud(client: BaseClient, task_id: str) -> None:
    config = TaskPushNotificationConfig(task_id=task_id, id="hook-1", url=HOOK, token="t0ken")
    created = await client.create_task_push_notification_config(config)
    assert (created.task_id, created.id, created.url, created.token) == (task_id, "hook-1", HOOK, "t0ken")
    got = await client.get_task_push_notification_config(
        GetTaskPushNotificationConfigRequest(task_id=task_id, id="hook-1")
    )
    assert got == created
    listed = await client.list_task_push_notification_configs(
        ListTaskPushNotificationConfigsRequest(task_id=task_id)
    )
    assert [c.id for c in listed.configs] == ["hook-1"]
    await client.delete_task_push_notification_config(
        DeleteTaskPushNotificationConfigRequest(task_id=task_id, id="hook-1")
    )
    listed = await client.list_task_push_notification_configs(
        ListTaskPushNotificationConfigsRequest(task_id=task_id)
    )
    assert list(listed.configs) == []


async def test_unknown_tasks_are_task_not_found(v1_server: str, binding: str) -> None:
    async with sdk13.connect(v1_server, binding=binding) as client:
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id=f"no-such-task-{uuid.uuid4()}"))
        with pytest.raises(TaskNotFoundError):
            await client.cancel_task(CancelTaskRequest(id=f"no-such-task-{uuid.uuid4()}"))


# --- @a2a-js/sdk 1.3 ------------------------------------------------------------------------------


def test_a2a_js_send_get_and_stream(v1_server: str, binding: str) -> None:
    text = unique("chunks=2 delay=0 from js")
    task = A2A_JS.one(v1_server, "send", text=text, binding=binding)
    assert_completed_turn(task, text, 2)
    assert A2A_JS.one(v1_server, "get", taskId=task["id"], binding=binding) == task

    later = A2A_JS.one(
        v1_server, "send", text=unique("pause=0.3 chunks=1 js"), blocking=False, binding=binding
    )
    assert later["state"] in ("submitted", "working"), later

    text = unique("chunks=3 delay=0 js stream")
    assert_stream(A2A_JS.run(v1_server, "stream", text=text, binding=binding), text, 3, finals=False)


def test_a2a_js_list_cancel_subscribe_and_push_configs(v1_server: str, binding: str) -> None:
    context_id = str(uuid.uuid4())
    waiting = A2A_JS.one(v1_server, "send", text=unique("wait"), contextId=context_id, binding=binding)
    assert (waiting["state"], waiting["text"]) == ("input-required", WAIT_QUESTION)
    listed = A2A_JS.one(v1_server, "list", contextId=context_id, binding=binding)
    assert [task["id"] for task in listed["tasks"]] == [waiting["id"]]

    config = {"taskId": waiting["id"], "id": "hook-1", "url": HOOK, "token": "t0ken"}
    assert A2A_JS.one(v1_server, "push-create", **config, binding=binding) == {
        "kind": "push-config",
        **config,
    }
    assert (
        A2A_JS.one(v1_server, "push-get", taskId=waiting["id"], id="hook-1", binding=binding)["url"] == HOOK
    )
    configs = A2A_JS.one(v1_server, "push-list", taskId=waiting["id"], binding=binding)["configs"]
    assert [c["id"] for c in configs] == ["hook-1"]
    assert A2A_JS.one(v1_server, "push-delete", taskId=waiting["id"], id="hook-1", binding=binding) == {
        "kind": "deleted"
    }
    assert A2A_JS.one(v1_server, "push-list", taskId=waiting["id"], binding=binding)["configs"] == []

    assert A2A_JS.one(v1_server, "cancel", taskId=waiting["id"], binding=binding)["state"] == "canceled"
    again = A2A_JS.one(v1_server, "cancel", taskId=waiting["id"], binding=binding)
    assert (again["kind"], again["error"]) == ("error", "TaskNotCancelableError")

    # The task pauses first, so the subscription joins it while it runs.
    text = unique("pause=2 chunks=2 delay=0 js subscribed")
    running = A2A_JS.one(v1_server, "send", text=text, blocking=False, binding=binding)
    events = A2A_JS.run(v1_server, "resubscribe", taskId=running["id"], binding=binding)
    assert events[0]["id"] == running["id"]
    assert_completed_turn(fold(events), text, 2)
