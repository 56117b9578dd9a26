"""Every 0.2.5 / 0.3 client generation against our dev server (moto backend), over real sockets.

The server runs `agents.scripted` with push on. The clients, unmodified:

- a2a-sdk 0.3.26 and 0.2.16, each in its own environment, through `clients.drivers`;
- fasta2a 2.1.1's client: card, send (blocking and not), stream and get. Its ``message/send``
  and ``message/stream`` send 1.0-shaped messages (parts without ``kind``) under the 0.3 method
  names, which the server reads, and answers as fasta2a reads them, with ``A2A_FASTA2A_COMPAT``
  on (`a2a_core.protocol.v0.fasta2a`); its ``tasks/get`` reads our 0.3 tasks;
- a2a-sdk 1.3 in-process, through the 0.3 compatibility transport our 0.3 card selects;
- @a2a-js/sdk 1.3 with its (opt-in) 0.3 compatibility layer.
"""

from __future__ import annotations

import time

import pytest
from a2a.client import BaseClient
from a2a.types import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    SubscribeToTaskRequest,
    TaskNotCancelableError,
    TaskPushNotificationConfig,
    TaskState,
)

from agents import WAIT_QUESTION
from clients import sdk13
from clients.drivers import A2A_JS, A2A_SDK_02, A2A_SDK_03, FASTA2A, Driver
from clients.summaries import assert_completed_turn, assert_stream, chunks_text, fold, unique

pytestmark = pytest.mark.e2e

HOOK = "http://127.0.0.1:9/a2a-hook"  # loopback: `dev` accepts it; nothing is delivered to a done task
TASK_NOT_CANCELABLE = -32002
POLL_SECONDS = 20.0

# Card each driver reads: 0.3 clients ask agent-card.json first, 0.2 ones agent.json.
LEGACY_DRIVERS = {A2A_SDK_03: "0.3.0", A2A_SDK_02: "0.2.5"}


@pytest.fixture(params=list(LEGACY_DRIVERS), ids=lambda d: d.label)
def driver(request: pytest.FixtureRequest) -> Driver:
    value: Driver = request.param
    return value


# --- a2a-sdk 0.3.26 and 0.2.16 ---------------------------------------------------------------------


def test_card(driver: Driver, scripted_server: str) -> None:
    card = driver.one(scripted_server, "card")
    assert card["protocolVersion"] == LEGACY_DRIVERS[driver]
    assert (card["url"], card["preferredTransport"]) == (scripted_server, "JSONRPC")
    assert (card["streaming"], card["pushNotifications"]) == (True, True)


def test_blocking_send_then_get_with_history_length(driver: Driver, scripted_server: str) -> None:
    text = unique("chunks=2 delay=0 blocking")
    task = driver.one(scripted_server, "send", text=text)
    assert_completed_turn(task, text, 2)
    assert task["history"] == [{"role": "user", "text": text}, {"role": "agent", "text": f"done: {text}"}]

    last = driver.one(scripted_server, "get", taskId=task["id"], historyLength=1)
    assert (last["id"], last["state"]) == (task["id"], "completed")
    assert last["history"] == [{"role": "agent", "text": f"done: {text}"}]


def test_non_blocking_send_then_get_until_done(driver: Driver, scripted_server: str) -> None:
    text = unique("pause=0.5 chunks=1 non-blocking")
    task = driver.one(scripted_server, "send", text=text, blocking=False)
    assert task["state"] in ("submitted", "working"), task
    deadline = time.monotonic() + POLL_SECONDS
    while task["state"] != "completed" and time.monotonic() < deadline:
        task = driver.one(scripted_server, "get", taskId=task["id"])
    assert_completed_turn(task, text, 1)


def test_stream_delivers_the_turn_in_order(driver: Driver, scripted_server: str) -> None:
    text = unique("chunks=3 delay=0 streamed")
    assert_stream(driver.run(scripted_server, "stream", text=text), text, 3, finals=True)


def test_cancel_a_waiting_task_then_cancel_again(driver: Driver, scripted_server: str) -> None:
    waiting = driver.one(scripted_server, "send", text=unique("wait"))
    assert (waiting["state"], waiting["text"]) == ("input-required", WAIT_QUESTION)

    canceled = driver.one(scripted_server, "cancel", taskId=waiting["id"])
    assert (canceled["id"], canceled["state"]) == (waiting["id"], "canceled")
    again = driver.one(scripted_server, "cancel", taskId=waiting["id"])
    assert (again["kind"], again["code"]) == ("error", TASK_NOT_CANCELABLE)
    assert driver.one(scripted_server, "get", taskId=waiting["id"])["state"] == "canceled"


def test_push_config_set_then_get(driver: Driver, scripted_server: str) -> None:
    task = driver.one(scripted_server, "send", text=unique("chunks=1 delay=0 push"))
    created = driver.one(
        scripted_server, "push-create", taskId=task["id"], id="hook-1", url=HOOK, token="t0ken"
    )
    assert created == {
        "kind": "push-config",
        "taskId": task["id"],
        "id": "hook-1",
        "url": HOOK,
        "token": "t0ken",
    }
    assert driver.one(scripted_server, "push-get", taskId=task["id"], id="hook-1") == created


def test_a2a_sdk_03_resubscribe_replays_the_rest_of_the_turn(scripted_server: str) -> None:
    # The task pauses first, so the resubscribe usually joins it running; either way the
    # events after the snapshot complete it, each chunk once.
    text = unique("pause=2 chunks=3 delay=0 resubscribed")
    task = A2A_SDK_03.one(scripted_server, "send", text=text, blocking=False)
    events = A2A_SDK_03.run(scripted_server, "resubscribe", taskId=task["id"])
    assert events[0]["id"] == task["id"]
    assert_completed_turn(fold(events), text, 3)


# --- fasta2a 2.1.1 (the server runs with A2A_FASTA2A_COMPAT on) ------------------------------------


def test_fasta2a_reads_the_card(scripted_server: str) -> None:
    # fetch_card=True: it then calls the first interface's URL (JSON-RPC 1.0: the same endpoint).
    card = FASTA2A.one(scripted_server, "card")
    assert card["interfaces"][0] == {"url": scripted_server, "transport": "JSONRPC", "protocolVersion": "1.0"}
    assert ("JSONRPC", "0.3") in {(i["transport"], i["protocolVersion"]) for i in card["interfaces"]}


def test_fasta2a_blocking_send_then_get(scripted_server: str) -> None:
    text = unique("chunks=2 delay=0 fasta2a blocking")
    task = FASTA2A.one(scripted_server, "send", text=text)
    assert_completed_turn(task, text, 2)
    assert task["history"] == [{"role": "user", "text": text}, {"role": "agent", "text": f"done: {text}"}]
    assert FASTA2A.one(scripted_server, "get", taskId=task["id"]) == task


def test_fasta2a_non_blocking_send_then_get_until_done(scripted_server: str) -> None:
    text = unique("pause=0.5 chunks=1 fasta2a non-blocking")
    task = FASTA2A.one(scripted_server, "send", text=text, blocking=False)
    assert task["state"] in ("submitted", "working"), task
    deadline = time.monotonic() + POLL_SECONDS
    while task["state"] != "completed" and time.monotonic() < deadline:
        task = FASTA2A.one(scripted_server, "get", taskId=task["id"])
    assert_completed_turn(task, text, 1)


def test_fasta2a_stream_delivers_the_turn_in_order(scripted_server: str) -> None:
    text = unique("chunks=3 delay=0 fasta2a streamed")
    assert_stream(FASTA2A.run(scripted_server, "stream", text=text), text, 3, finals=False)


def test_fasta2a_answers_the_agents_question(scripted_server: str) -> None:
    waiting = FASTA2A.one(scripted_server, "send", text=unique("wait"))
    assert (waiting["state"], waiting["text"]) == ("input-required", WAIT_QUESTION)
    reply = unique("fasta2a reply")
    ids = {"taskId": waiting["id"], "contextId": waiting["contextId"]}
    done = FASTA2A.one(scripted_server, "send", text=reply, **ids)
    assert (done["id"], done["state"], done["text"]) == (waiting["id"], "completed", f"done: {reply}")


@pytest.mark.anyio
async def test_fasta2a_reads_a_task_another_client_made(scripted_server: str) -> None:
    text = unique("chunks=2 delay=0 for fasta2a")
    async with sdk13.connect(scripted_server) as client:
        sent = await sdk13.send(client, sdk13.user_message(text))

    task = FASTA2A.one(scripted_server, "get", taskId=sent.id)
    assert (task["id"], task["contextId"]) == (sent.id, sent.context_id)
    assert_completed_turn(task, text, 2)
    assert task["history"] == [{"role": "user", "text": text}, {"role": "agent", "text": f"done: {text}"}]


def test_fasta2a_cannot_read_our_task_not_found(scripted_server: str) -> None:
    # A known client limitation (docs/clients-tested.md): its tasks/get accepts one error only,
    # -32001 with exactly the schema's default text, and ours names the task.
    failure = FASTA2A.one(scripted_server, "get", taskId="no-such-task")
    assert failure["error"] == "ValidationError"
    assert "Task not found" in failure["message"]


# --- a2a-sdk 1.3 (in-process) through its 0.3 compatibility transport --------------------------


@pytest.mark.anyio
async def test_a2a_sdk_13_subscribe_through_the_compat_transport(scripted_server: str) -> None:
    # The task pauses first, so the subscription joins it while it runs.
    text = unique("pause=2 chunks=3 delay=0 subscribed")
    async with (
        sdk13.connect(scripted_server, version="0.3") as sender,
        sdk13.connect(scripted_server, streaming=True, version="0.3") as subscriber,
    ):
        assert sdk13.transport_name(subscriber) == "CompatJsonRpcTransport"
        task = await sdk13.send(sender, sdk13.user_message(text), return_immediately=True)
        assert task.status.state == TaskState.TASK_STATE_SUBMITTED
        events = await sdk13.collect(subscriber.subscribe(SubscribeToTaskRequest(id=task.id)))
    assert events[0].task.status.state in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
    done = sdk13.fold(events)
    assert done.id == task.id
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert "".join(sdk13.artifact_chunks(done, "chunks")) == chunks_text(text, 3)


@pytest.mark.anyio
async def test_a2a_sdk_13_cancel_through_the_compat_transport(scripted_server: str) -> None:
    async with sdk13.connect(scripted_server, version="0.3") as client:
        assert sdk13.transport_name(client) == "CompatJsonRpcTransport"
        waiting = await sdk13.send(client, sdk13.user_message(unique("wait")))
        assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        canceled = await client.cancel_task(CancelTaskRequest(id=waiting.id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=waiting.id))
        later = await client.get_task(GetTaskRequest(id=waiting.id))
        assert later.status.state == TaskState.TASK_STATE_CANCELED


@pytest.mark.anyio
async def test_a2a_sdk_13_push_config_crud_through_the_compat_transport(scripted_server: str) -> None:
    async with sdk13.connect(scripted_server, version="0.3") as client:
        assert sdk13.transport_name(client) == "CompatJsonRpcTransport"
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


# --- @a2a-js/sdk 1.3 with its 0.3 compatibility layer ----------------------------------------------


def test_a2a_js_send_get_and_stream_through_its_compat_layer(scripted_server: str) -> None:
    card = A2A_JS.one(scripted_server, "card")
    assert {(i["transport"], i["protocolVersion"][:3]) for i in card["interfaces"]} == {
        ("JSONRPC", "1.0"),
        ("HTTP+JSON", "1.0"),
        ("JSONRPC", "0.3"),
        ("JSONRPC", "1.1"),  # the A2A 1.1 draft's, which @a2a-js/sdk parses and does not pick
        ("HTTP+JSON", "1.1"),
    }

    text = unique("chunks=2 delay=0 from js")
    task = A2A_JS.one(scripted_server, "send", text=text, version="0.3")
    assert_completed_turn(task, text, 2)
    assert A2A_JS.one(scripted_server, "get", taskId=task["id"], version="0.3") == task

    text = unique("chunks=3 delay=0 js stream")
    assert_stream(A2A_JS.run(scripted_server, "stream", text=text, version="0.3"), text, 3, finals=False)
