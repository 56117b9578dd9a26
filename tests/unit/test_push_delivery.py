"""Notifications POSTed to real receivers on 127.0.0.1: headers, signatures, retries, dead letters."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from a2a_core.core.tasklog.changes import Change, Decide
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import ArtifactUpdated
from a2a_core.domain import Artifact, PushNotificationConfig, TaskState, TextPart
from a2a_core.push.metrics import DELIVERED, FAILED, RETRIED
from a2a_core.push.notifier import CommitRef
from a2a_core.push.signing import jwks
from a2a_core.push.urls import UrlPolicy
from a2a_core.push.verify import verify_notification
from log_checks import CountingStore, reference_task
from push_harness import ISSUER, Harness
from push_receiver import Receiver, closed_port, receiving, tls_for

pytestmark = pytest.mark.anyio


def _always(change: Change) -> Decide:
    return lambda _head: change


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as receiver:
        yield receiver


async def test_a_terminal_status_posts_the_task_signed_with_the_event_id(receiver: Receiver) -> None:
    harness = Harness()
    url = receiver.url()
    task_id = await harness.task(PushNotificationConfig(url=url, id="c1", token="tok"))
    await harness.move(task_id, TaskState.working)
    commit = await harness.move(task_id, TaskState.completed)
    [result] = await harness.notify(commit)
    assert result.delivered
    [request] = receiver.requests
    claims = await harness.verify(request, url, expected_token="tok")
    assert request.headers["X-A2A-Notification-Id"] == claims["jti"] == f"{task_id}:{commit.last_seq}"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["Authorization"] == f"Bearer {request.headers['Authorization'].split()[1]}"
    task = json.loads(request.body)
    assert task == json.loads(
        (await harness.ledger.load(task_id)).model_dump_json(by_alias=True, exclude_none=True)
    )
    assert task["status"]["state"] == "completed"
    assert harness.metrics.counts == {DELIVERED: 1}


@pytest.mark.parametrize(("scheme", "sent"), [("Bearer", "Bearer"), ("basic", "Basic")])
async def test_configured_credentials_become_authorization_and_the_jwt_moves_to_x_a2a_signature(
    receiver: Receiver, scheme: str, sent: str
) -> None:
    harness = Harness()
    url = receiver.url()
    config = PushNotificationConfig.model_validate(
        {"url": url, "id": "c1", "authentication": {"schemes": ["OAuth2", scheme], "credentials": "Y3JlZA=="}}
    )
    task_id = await harness.task(config)
    await harness.notify(await harness.move(task_id, TaskState.working, TaskState.input_required))
    [request] = receiver.requests
    assert request.headers["Authorization"] == f"{sent} Y3JlZA=="
    assert "X-A2A-Notification-Token" not in request.headers
    headers = {k: v for k, v in request.headers.items() if k != "Authorization"}
    claims = verify_notification(
        headers, request.body, jwks=await jwks([harness.signer]), audience=url, issuer=ISSUER
    )
    assert claims["taskId"] == task_id


async def test_only_turn_ends_are_notified_by_default_and_everything_with_events_all(
    receiver: Receiver,
) -> None:
    for events, expected in (("status", ["input-required"]), ("all", ["working", "input-required"])):
        harness = Harness(events=events)
        task_id = await harness.task(PushNotificationConfig(url=receiver.url(), id="c1"))
        await harness.notify(await harness.move(task_id, TaskState.working))
        await harness.notify(await harness.move(task_id, TaskState.input_required))
        states = [json.loads(r.body)["status"]["state"] for r in receiver.requests]
        assert states == expected
        receiver.requests.clear()


async def test_a_commit_notified_long_after_it_was_written_sends_the_task_as_of_that_commit(
    receiver: Receiver,
) -> None:
    """The push function may lag behind a streaming agent by many commits: each notification is
    still the task right after its commit, read from a snapshot near it, not from the whole log."""
    harness = Harness(events="all")
    task_id = await harness.task(PushNotificationConfig(url=receiver.url(), id="c1"))
    commits = [await harness.move(task_id, TaskState.working)]
    for index in range(30):
        chunk = Artifact(artifact_id="a", parts=[TextPart(text=f"{index} ")])
        written = await harness.ledger.write(
            task_id, _always(Change([ArtifactUpdated(seq=0, artifact=chunk)]))
        )
        assert written is not None
        commits.append(written)
    commits.append(await harness.move(task_id, TaskState.completed))
    counting = CountingStore(harness.store)
    harness.notifier.ledger = TaskLedger(counting)

    for commit in commits:  # all of them only now, up to 31 commits behind the head
        await harness.notify(commit)

    log = await harness.store.read(task_id)
    assert [json.loads(request.body) for request in receiver.requests] == [
        reference_task(log[: log.index(commit) + 1]).model_dump(mode="json", by_alias=True, exclude_none=True)
        for commit in commits
    ]
    assert set(counting.calls) == {"latest"}  # one page of entries each: a snapshot was in it


async def test_a_receiver_failing_twice_then_accepting_gets_one_accepted_delivery_in_three_attempts() -> None:
    harness = Harness(max_attempts=3, backoff=0.5)
    with receiving([500, 503]) as receiver:
        task_id = await harness.task(PushNotificationConfig(url=receiver.url(), id="c1"))
        [result] = await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
    assert result.delivered
    assert result.attempts == 3
    assert [r.status for r in receiver.requests] == [500, 503, 200]
    assert len(receiver.accepted) == 1
    assert len({r.headers["X-A2A-Notification-Id"] for r in receiver.requests}) == 1  # one event, retried
    assert 0.25 <= harness.sleeps[0] <= 0.5 < harness.sleeps[1] <= 1.0  # exponential, jittered
    assert harness.metrics.counts == {RETRIED: 2, DELIVERED: 1}
    assert harness.dead_letters.letters() == []


async def test_a_receiver_that_is_down_leaves_a_dead_letter_with_what_a_replay_needs() -> None:
    harness = Harness(max_attempts=2)
    url = f"http://127.0.0.1:{closed_port()}/hook"
    task_id = await harness.task(PushNotificationConfig(url=url, id="c1", token="tok"))
    commit = await harness.move(task_id, TaskState.working, TaskState.failed)
    [result] = await harness.notify(commit)
    assert not result.delivered
    [letter] = harness.dead_letters.letters()
    assert (letter.task_id, letter.config_id, letter.event_id, letter.url) == (
        task_id,
        "c1",
        f"{task_id}:{commit.last_seq}",
        url,
    )
    assert letter.attempts == 2
    assert "ConnectError" in letter.reason
    assert json.loads(letter.body or "")["status"]["state"] == "failed"
    assert harness.metrics.counts == {RETRIED: 1, FAILED: 1}

    with receiving() as receiver:  # the receiver is back; the replay reads the config again
        await harness.configs.put(task_id, PushNotificationConfig(url=receiver.url(), id="c1", token="tok"))
        replayed = await harness.notifier.replay(letter)
        assert replayed is not None
        assert replayed.delivered
        [request] = receiver.requests
    assert request.body == (letter.body or "").encode()
    assert request.headers["X-A2A-Notification-Id"] == letter.event_id
    assert request.headers["X-A2A-Notification-Token"] == "tok"


async def test_permanent_refusals_and_redirects_are_not_retried_nor_followed() -> None:
    harness = Harness(max_attempts=3)
    with receiving([404]) as gone, receiving([302]) as moving:
        task_id = await harness.task(
            PushNotificationConfig(url=gone.url(), id="gone"),
            PushNotificationConfig(url=moving.url(), id="moving"),
        )
        results = await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
    assert [(r.delivered, r.attempts, r.reason) for r in results] == [
        (False, 1, "HTTP 404"),
        (False, 1, "HTTP 302"),
    ]
    assert len(gone.requests) == len(moving.requests) == 1
    assert {letter.config_id for letter in harness.dead_letters.letters()} == {"gone", "moving"}


async def test_a_slow_webhook_does_not_delay_the_others() -> None:
    harness = Harness(max_attempts=1, timeout=1.5)
    with receiving(delay=3.0) as slow, receiving() as fast:
        task_id = await harness.task(
            PushNotificationConfig(url=slow.url(), id="slow"),
            PushNotificationConfig(url=fast.url(), id="fast"),
        )
        started = time.monotonic()
        results = await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
        assert fast.requests[0].at - started < 0.5
    assert [r.delivered for r in results] == [False, True]
    assert "ReadTimeout" in results[0].reason


async def test_a_host_rebound_to_a_private_address_after_set_gets_nothing(receiver: Receiver) -> None:
    answers = iter([["93.184.215.14"], ["127.0.0.1"]])  # public when set, loopback at delivery
    calls: list[str] = []

    async def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return next(answers)

    policy = UrlPolicy(resolver=rebinding)
    url = f"https://hooks.example.com:{receiver.port}/hook"
    await policy.check(url)  # what `set` did
    harness = Harness(policy=policy)
    task_id = await harness.task(PushNotificationConfig(url=url, id="c1"))
    [result] = await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
    assert not result.delivered
    assert result.attempts == 0
    assert "loopback" in result.reason
    assert calls == ["hooks.example.com", "hooks.example.com"]
    assert receiver.requests == []
    assert harness.dead_letters.letters()[0].reason.startswith("refused:")


@pytest.mark.parametrize(
    "address", ["10.0.0.8", "169.254.169.254", "fd00:ec2::254", "224.0.0.1", "240.0.0.1", "100.64.0.9", "::"]
)
async def test_every_refused_address_class_is_refused_again_at_delivery(address: str) -> None:
    async def rebound(host: str, port: int) -> list[str]:
        return [address]

    harness = Harness(policy=UrlPolicy(resolver=rebound))
    task_id = await harness.task(PushNotificationConfig(url="https://hooks.example.com/a2a", id="c1"))
    [result] = await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
    assert (result.delivered, result.attempts) == (False, 0)
    assert result.reason.startswith("refused:")


async def test_an_unresolvable_host_is_retried_then_dead_lettered() -> None:
    async def nxdomain(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    harness = Harness(policy=UrlPolicy(resolver=nxdomain), max_attempts=3)
    task_id = await harness.task(PushNotificationConfig(url="https://gone.example.com/a2a", id="c1"))
    [result] = await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
    assert (result.delivered, result.attempts) == (False, 0)
    assert "does not resolve" in result.reason
    assert len(harness.sleeps) == 2


async def test_a_delivery_out_of_time_stops_retrying(receiver: Receiver) -> None:
    harness = Harness(max_attempts=5, timeout=1.0)
    receiver.statuses = [500] * 5
    task_id = await harness.task(PushNotificationConfig(url=receiver.url(), id="c1"))
    commit = await harness.move(task_id, TaskState.working, TaskState.completed)
    ref = CommitRef(commit.task_id, commit.first_seq, commit.state, commit)
    [result] = await harness.notifier.on_commit(ref, deadline=time.monotonic() + 1.2)
    assert not result.delivered
    assert "out of time" in result.reason
    assert len(receiver.requests) == 1


@pytest.mark.parametrize(("certified", "delivered"), [("hooks.test", True), ("someone-else.test", False)])
async def test_https_connects_to_the_checked_address_and_verifies_the_certificate_for_the_name(
    certified: str, delivered: bool
) -> None:
    server_tls, client_tls = tls_for(certified)

    async def hooks_test(host: str, port: int) -> list[str]:
        assert host == "hooks.test"
        return ["127.0.0.1"]

    harness = Harness(policy=UrlPolicy(allow_insecure_loopback=True, resolver=hooks_test), max_attempts=1)
    harness.sender.ssl_context = client_tls
    with receiving(tls=server_tls) as receiver:
        url = f"https://hooks.test:{receiver.port}/hook"
        task_id = await harness.task(PushNotificationConfig(url=url, id="c1"))
        [result] = await harness.notify(await harness.move(task_id, TaskState.working, TaskState.completed))
        assert result.delivered is delivered
        if delivered:
            [request] = receiver.requests
            assert request.headers["Host"] == f"hooks.test:{receiver.port}"
            assert (await harness.verify(request, url))["aud"] == url
        else:
            assert receiver.requests == []
            assert "ConnectError" in result.reason  # the certificate does not name hooks.test
