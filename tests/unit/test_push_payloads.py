"""Each config is notified in the payload of the protocol generation that created it (0.x: the
Task; 1.0: a StreamResponse), POSTed to real receivers on 127.0.0.1, and each body is signed as
it was posted."""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from a2a.types import StreamResponse  # a2a-sdk 1.3: how its receivers read a push body
from google.protobuf import json_format

from a2a_core.compose.push import push_payloads
from a2a_core.domain import PushNotificationConfig, Task, TaskState, TaskStatus
from a2a_core.generations import V0_3, V1_0, V1_1
from a2a_core.protocol.v1 import codec
from a2a_core.protocol.v1.wire.protojson import dump
from a2a_core.push.payloads import PushPayloads, TaskPayload
from push_harness import Harness
from push_receiver import Receiver, closed_port, receiving

pytestmark = pytest.mark.anyio

A2A_JSON = "application/a2a+json"


def v1_config(url: str, **fields: Any) -> PushNotificationConfig:
    return PushNotificationConfig(url=url, **fields, generation=V1_0.version)


def v0_body(task: Task) -> Any:
    return json.loads(task.model_dump_json(by_alias=True, exclude_none=True))


def v1_body(task: Task) -> Any:
    return {"task": dump(codec.task_to_v1(task))}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as receiver:
        yield receiver


async def test_a_1_0_config_gets_a_stream_response_with_the_task_signed_over_those_bytes(
    receiver: Receiver,
) -> None:
    harness = Harness()
    url = receiver.url()
    task_id = await harness.task(v1_config(url, id="c1", token="tok"))
    await harness.move(task_id, TaskState.working)
    commit = await harness.move(task_id, TaskState.completed)

    [result] = await harness.notify(commit)

    assert result.delivered
    [request] = receiver.requests
    claims = await harness.verify(request, url, expected_token="tok")
    assert claims["body_sha256"] == hashlib.sha256(request.body).hexdigest()
    assert request.headers["X-A2A-Notification-Id"] == claims["jti"] == f"{task_id}:{commit.last_seq}"
    assert request.headers["Content-Type"] == A2A_JSON
    pushed = json.loads(request.body)
    assert pushed == v1_body(await harness.ledger.load(task_id))
    assert pushed["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    parsed = json_format.Parse(request.body, StreamResponse())  # strict: an unknown field would fail
    assert (parsed.WhichOneof("payload"), parsed.task.id) == ("task", task_id)


async def test_one_commit_posts_each_config_its_own_generations_payload_signed_as_posted(
    receiver: Receiver,
) -> None:
    harness = Harness()
    configs = {
        "/v0": PushNotificationConfig(url=receiver.url("/v0"), id="old"),
        "/v1": v1_config(receiver.url("/v1"), id="new"),
        "/v1-again": v1_config(receiver.url("/v1-again"), id="newer"),
    }
    task_id = await harness.task(*configs.values())
    commit = await harness.move(task_id, TaskState.working, TaskState.input_required)

    results = await harness.notify(commit)

    assert [r.delivered for r in results] == [True, True, True]
    posted = {r.path: r for r in receiver.requests}
    task = await harness.ledger.load(task_id)
    assert json.loads(posted["/v0"].body) == v0_body(task)
    assert posted["/v0"].headers["Content-Type"] == "application/json"
    assert json.loads(posted["/v1"].body) == v1_body(task)
    assert posted["/v1-again"].body == posted["/v1"].body
    hashes = set()
    for path, request in posted.items():
        claims = await harness.verify(request, receiver.url(path))  # the hash of what it got
        hashes.add(claims["body_sha256"])
        assert request.headers["X-A2A-Notification-Id"] == f"{task_id}:{commit.last_seq}"
    assert len(hashes) == 2  # one body per generation


async def test_with_events_all_every_notified_commit_is_the_whole_task_in_1_0(receiver: Receiver) -> None:
    harness = Harness(events="all")
    task_id = await harness.task(v1_config(receiver.url(), id="c1"))
    for state in (TaskState.working, TaskState.input_required, TaskState.working, TaskState.completed):
        await harness.notify(await harness.move(task_id, state))
    bodies = [json.loads(r.body) for r in receiver.requests]
    assert [set(body) for body in bodies] == [{"task"}] * 4
    assert [body["task"]["status"]["state"] for body in bodies] == [
        "TASK_STATE_WORKING",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
    ]
    assert bodies[-1] == v1_body(await harness.ledger.load(task_id))


async def test_a_1_0_dead_letter_keeps_its_generation_and_replays_the_same_signed_bytes() -> None:
    harness = Harness(max_attempts=1)
    task_id = await harness.task(v1_config(f"http://127.0.0.1:{closed_port()}/hook", id="c1", token="tok"))
    commit = await harness.move(task_id, TaskState.working, TaskState.failed)
    [result] = await harness.notify(commit)
    assert not result.delivered
    [letter] = harness.dead_letters.letters()
    assert letter.protocol_version == V1_0.version
    assert json.loads(letter.body or "") == v1_body(await harness.ledger.load(task_id))

    with receiving() as receiver:  # back up; one letter kept whole, one too large for SQS (no body)
        await harness.configs.put(task_id, v1_config(receiver.url(), id="c1", token="tok"))
        kept = await harness.notifier.replay(letter)
        rebuilt = await harness.notifier.replay(letter.model_copy(update={"body": None}))
        requests = receiver.wait_for(2)
    assert kept is not None
    assert kept.delivered
    assert rebuilt is not None
    assert rebuilt.delivered
    for request in requests:
        assert request.body == (letter.body or "").encode()
        assert request.headers["Content-Type"] == A2A_JSON
        assert request.headers["X-A2A-Notification-Id"] == letter.event_id
        await harness.verify(request, receiver.url(), expected_token="tok")


@pytest.mark.parametrize(
    ("kept_as", "now", "expected"),
    [(V0_3.version, V1_0.version, v1_body), (V1_0.version, V0_3.version, v0_body)],
)
async def test_a_replay_to_a_config_replaced_through_the_other_generation_is_rebuilt_in_its_payload(
    kept_as: str, now: str, expected: Any
) -> None:
    harness = Harness(max_attempts=1)
    down = f"http://127.0.0.1:{closed_port()}/hook"
    task_id = await harness.task(PushNotificationConfig(url=down, id="c1", generation=kept_as))
    await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
    [letter] = harness.dead_letters.letters()
    assert letter.protocol_version == kept_as

    with receiving() as receiver:
        await harness.configs.put(
            task_id,
            PushNotificationConfig(url=receiver.url(), id="c1").model_copy(update={"generation": now}),
        )
        replayed = await harness.notifier.replay(letter)
        [request] = receiver.wait_for(1)
    assert replayed is not None
    assert replayed.delivered
    assert json.loads(request.body) == expected(await harness.ledger.load(task_id))
    await harness.verify(request, receiver.url())


async def test_letters_kept_before_generations_were_read_as_0_x() -> None:
    from a2a_core.push.dead_letters import PushDeadLetter

    old = {
        "taskId": "t",
        "configId": "c",
        "eventId": "t:3",
        "seq": 3,
        "url": "https://h/x",
        "reason": "HTTP 500",
        "attempts": 3,
        "failedAt": 1.0,
        "body": "{}",
    }
    assert PushDeadLetter.model_validate_json(json.dumps(old)).protocol_version == V0_3.version


def test_payloads_are_built_once_on_first_use_and_an_unknown_version_gets_the_task(
    caplog: pytest.LogCaptureFixture,
) -> None:
    built: list[str] = []

    def v1() -> TaskPayload:
        built.append(V1_0.version)
        return TaskPayload()

    payloads = PushPayloads({V1_0.version: v1})
    assert built == []
    assert payloads.for_version(V1_0.version) is payloads.for_version(V1_0.version)
    assert built == [V1_0.version]
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.completed))
    with caplog.at_level(logging.WARNING, logger="a2a_core.push.payloads"):
        future = payloads.for_version("2.0")  # a config a newer deployment wrote
    assert isinstance(future, TaskPayload)
    assert json.loads(future.encode(task)) == v0_body(task)
    assert "no push payload for protocol version '2.0'" in caplog.text


def test_the_push_function_imports_the_1_0_codec_only_when_a_1_0_config_is_notified() -> None:
    script = """
import sys
from a2a_core.compose.push import push_payloads
from a2a_core.domain import Task, TaskState, TaskStatus
from a2a_core.generations import V0_3, V1_0, V1_1
task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.completed))
payloads = push_payloads()
payloads.for_version(V0_3.version).encode(task)
before = "a2a_core.protocol.v1.codec" in sys.modules
payloads.for_version(V1_0.version).encode(task)
print(before, "a2a_core.protocol.v1.codec" in sys.modules)
"""
    # A fixed script of our own, run by our own interpreter: a fresh process has nothing imported.
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)  # noqa: S603
    assert out.stdout.split() == ["False", "True"]


def test_the_composition_root_plugs_in_the_stream_response_for_1_0() -> None:
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.input_required))
    payloads = push_payloads()
    assert json.loads(payloads.for_version(V1_0.version).encode(task)) == v1_body(task)
    assert payloads.for_version(V1_0.version).content_type == A2A_JSON
    assert json.loads(payloads.for_version(V0_3.version).encode(task)) == v0_body(task)


def test_a_1_1_config_gets_the_1_0_body_with_the_generation_and_a_1_0_config_without() -> None:
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.completed), generation=6)
    payloads = push_payloads()
    draft = json.loads(payloads.for_version(V1_1.version).encode(task))
    older = json.loads(payloads.for_version(V1_0.version).encode(task))
    assert draft == {"task": {**older["task"], "generation": "6"}}
    assert "generation" not in older["task"]
    assert payloads.for_version(V1_1.version).content_type == A2A_JSON
