"""The push handler fed DynamoDB stream events read from moto's real table stream.

Tasks are created and run the way the API and the worker Lambda do it (on moto), notifications
are signed by a KMS key on moto, and a real receiver on 127.0.0.1 takes them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from a2a_core.aws.event_filters import PUSH_STREAM_FILTERS, matches
from a2a_core.aws.kms_signer import KmsSigner
from a2a_core.aws.lambdas import worker_handler
from a2a_core.aws.push_stream import push_stream_handler
from a2a_core.aws.resources import ResourceNames
from a2a_core.compose import build_server
from a2a_core.compose.app import compose_app
from a2a_core.compose.aws import (
    AwsAdapters,
    build_broker,
    build_kms_client,
    build_push_store,
    build_task_store,
)
from a2a_core.compose.push import build_push_notifier
from a2a_core.core.tasklog.changes import Change, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.turn.worker import Worker
from a2a_core.dev.emulated import push_poller
from a2a_core.domain import PushNotificationConfig, TaskState
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.emulator.stream_poller import DynamoDBStreamPoller, lambda_record, stream_event
from a2a_core.examples.echo import agent as echo
from a2a_core.generations import V0_3, V1_0
from a2a_core.push.dead_letters import PushDeadLetter
from a2a_core.push.notifier import PushNotifier
from a2a_core.push.signing import LocalSigner, Signer
from a2a_core.push.verify import verify_notification
from a2a_core.server import AgentServer
from a2a_core.settings import Settings, SettingsError
from aws_events import Deployment, lambda_context, load_function, receive, settle, sqs_event
from push_receiver import Receiver, closed_port, receiving

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_dynamodbstreams.type_defs import RecordTypeDef

ISSUER = "https://agent.example.com/"


class PushDeployment(Deployment):
    def __init__(self, aws: EmulatedAws, names: ResourceNames) -> None:
        super().__init__(aws, names)
        kms = build_kms_client(Settings.from_env(super().env()))
        self.key_id = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
        self.kms = kms
        self.streams = _streams(aws)
        self.stream_arn = aws.clients.dynamodb.describe_table(TableName=names.table)["Table"][
            "LatestStreamArn"
        ]
        self._iterator: str | None = None

    def env(self, **overrides: str) -> dict[str, str]:
        push = {
            "A2A_PUSH_ENABLED": "true",
            "A2A_PUSH_SIGNING_KEY_ID": self.key_id,
            "A2A_PUSH_DLQ_URL": self.names.push_dlq_url,
            "A2A_PUBLIC_URL": ISSUER,
            "A2A_PUSH_BACKOFF_SECONDS": "0.05",
        }
        return super().env(**{**push, **overrides})

    def api(self, **env: str) -> AgentServer:
        """The API as functions/api builds it: the KMS signer comes from the settings."""
        settings = Settings.from_env(self.env(**env))
        return build_server(
            settings,
            store=build_task_store(settings, self.aws.clients),
            broker=build_broker(settings, self.aws.clients),
            push_store=build_push_store(settings, self.aws.clients),
        )

    def notifier(self, signer: Signer | None = None, **env: str) -> PushNotifier:
        """The push function's notifier with loopback webhooks allowed (the receivers listen on
        127.0.0.1)."""
        settings = Settings.from_env(self.env(A2A_PUSH_ALLOW_INSECURE_LOOPBACK="true", **env))
        adapters = AwsAdapters(settings, self.aws.clients)
        return build_push_notifier(adapters, signer=signer or KmsSigner(self.kms, self.key_id))

    def push_handler(self, signer: Signer | None = None, **env: str) -> Any:
        return push_stream_handler(self.notifier(signer, **env))

    def new_records(self) -> list[RecordTypeDef]:
        """Stream records written since the last call (the first call reads from the start)."""
        if self._iterator is None:
            shard = self.streams.describe_stream(StreamArn=self.stream_arn)["StreamDescription"]["Shards"][0]
            self._iterator = self.streams.get_shard_iterator(
                StreamArn=self.stream_arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
        response = self.streams.get_records(ShardIterator=self._iterator)
        self._iterator = response["NextShardIterator"]
        return response["Records"]

    def event(self, records: list[RecordTypeDef]) -> dict[str, Any]:
        return stream_event(records, stream_arn=self.stream_arn, region=self.aws.region)

    def run_worker(self) -> None:
        """What the worker Lambda does with the run queue's messages."""
        worker = Worker(self.ledger, echo_executor(), lease_seconds=60)
        handler = worker_handler(worker)
        messages = receive(self.sqs, self.names.queue_url)
        assert messages
        settle(
            self.sqs,
            self.names.queue_url,
            messages,
            dict(handler(sqs_event(self.sqs, self.names.queue_url, messages), lambda_context())),
        )

    def dead_letters(self) -> list[PushDeadLetter]:
        messages = receive(self.sqs, self.names.push_dlq_url)
        return [PushDeadLetter.model_validate_json(m["Body"]) for m in messages]


def echo_executor() -> Any:
    from a2a_core.core.turn.executor import as_executor

    return as_executor(echo)


def _streams(aws: EmulatedAws) -> DynamoDBStreamsClient:
    import boto3

    return boto3.session.Session(region_name=aws.region).client(
        "dynamodbstreams", endpoint_url=aws.endpoint_url
    )


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> PushDeployment:
    return PushDeployment(local_aws, aws_resources)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as receiver:
        yield receiver


def rpc(app_service: AgentServer, method: str, params: dict[str, Any]) -> Any:
    async def call() -> Any:
        transport = httpx.ASGITransport(app=compose_app(app_service))
        async with httpx.AsyncClient(transport=transport, base_url="https://agent.example.com") as client:
            if method == "GET":
                return (await client.get(params["path"])).json()
            body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
            return (await client.post("/", json=body)).json()

    return asyncio.run(call())


def send(service: AgentServer, url: str, **config: Any) -> str:
    params = {
        "message": {
            "role": "user",
            "messageId": str(uuid.uuid4()),
            "parts": [{"kind": "text", "text": "hi"}],
        },
        "configuration": {"blocking": False, "pushNotificationConfig": {"url": url, **config}},
    }
    reply = rpc(service, "message/send", params)
    task_id: str = reply["result"]["id"]
    return task_id


def test_a_completed_task_is_pushed_signed_by_kms_and_verifies_against_the_api_jwks(
    deployment: PushDeployment, receiver: Receiver
) -> None:
    api = deployment.api(A2A_PUSH_ALLOW_INSECURE_LOOPBACK="true")  # the receiver is on loopback
    task_id = send(api, receiver.url(), token="tok-1")
    deployment.run_worker()

    response = deployment.push_handler()(
        deployment.event(deployment.new_records()), lambda_context("a2a-push")
    )

    assert response == {"batchItemFailures": []}
    [request] = receiver.wait_for(1)
    jwks = rpc(api, "GET", {"path": "/.well-known/jwks.json"})
    assert [key["kid"] for key in jwks["keys"]] == [deployment.key_id]
    claims = verify_notification(
        request.headers,
        request.body,
        jwks=jwks,
        audience=receiver.url(),
        issuer=ISSUER,
        expected_token="tok-1",
    )
    task = json.loads(request.body)
    assert task["id"] == claims["taskId"] == task_id
    assert task["status"]["state"] == "completed"
    assert task == rpc(api, "tasks/get", {"id": task_id})["result"]
    assert (
        request.headers["X-A2A-Notification-Id"]
        == claims["jti"]
        == f"{task_id}:{deployment.head(task_id).last_seq}"
    )


def rpc_v1(app_service: AgentServer, method: str, params: dict[str, Any]) -> Any:
    async def call() -> Any:
        transport = httpx.ASGITransport(app=compose_app(app_service))
        async with httpx.AsyncClient(transport=transport, base_url="https://agent.example.com") as client:
            body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
            reply = (await client.post("/", json=body, headers={"A2A-Version": "1.0"})).json()
            assert "error" not in reply, reply
            return reply["result"]

    return asyncio.run(call())


def test_each_config_is_pushed_and_dead_lettered_in_its_generations_payload_and_replays_from_sqs(
    deployment: PushDeployment, receiver: Receiver
) -> None:
    """A 0.x and a 1.0 config on one task, each with a twin whose receiver is down: the KMS-signed
    POSTs carry the Task and a StreamResponse; the dead letters read back from the push DLQ keep
    their generation and, once the receivers are back, replay the very bytes that were signed."""
    api = deployment.api(A2A_PUSH_ALLOW_INSECURE_LOOPBACK="true")
    down = f"http://127.0.0.1:{closed_port()}/hook"
    task_id = send(api, receiver.url("/v0"), id="v0")
    v0_down = {"url": down, "id": "v0-down"}
    rpc(api, "tasks/pushNotificationConfig/set", {"taskId": task_id, "pushNotificationConfig": v0_down})
    for config_id, url in (("v1", receiver.url("/v1")), ("v1-down", down)):
        rpc_v1(api, "CreateTaskPushNotificationConfig", {"taskId": task_id, "id": config_id, "url": url})
    deployment.run_worker()

    handler = deployment.push_handler(A2A_PUSH_MAX_ATTEMPTS="1")
    assert handler(deployment.event(deployment.new_records()), lambda_context("a2a-push")) == {
        "batchItemFailures": []
    }

    jwks = rpc(api, "GET", {"path": "/.well-known/jwks.json"})
    posted = {r.path: r for r in receiver.wait_for(2)}
    for path, request in posted.items():
        verify_notification(
            request.headers, request.body, jwks=jwks, audience=receiver.url(path), issuer=ISSUER
        )
    assert json.loads(posted["/v0"].body) == rpc(api, "tasks/get", {"id": task_id})["result"]
    assert json.loads(posted["/v1"].body) == {"task": rpc_v1(api, "GetTask", {"id": task_id})}
    assert posted["/v1"].headers["Content-Type"] == "application/a2a+json"

    letters = {letter.config_id: letter for letter in deployment.dead_letters()}
    assert {c: letter.protocol_version for c, letter in letters.items()} == {
        "v0-down": V0_3.version,
        "v1-down": V1_0.version,
    }
    assert letters["v0-down"].body == posted["/v0"].body.decode()
    assert letters["v1-down"].body == posted["/v1"].body.decode()

    # The receivers are back, each config set again through its own generation.
    v0_back = {**v0_down, "url": receiver.url("/v0-back")}
    rpc(api, "tasks/pushNotificationConfig/set", {"taskId": task_id, "pushNotificationConfig": v0_back})
    rpc_v1(
        api,
        "CreateTaskPushNotificationConfig",
        {"taskId": task_id, "id": "v1-down", "url": receiver.url("/v1-back")},
    )
    notifier = deployment.notifier()
    for letter in letters.values():
        replayed = asyncio.run(notifier.replay(letter))
        assert replayed is not None
        assert replayed.delivered
    back = {r.path: r for r in receiver.wait_for(4)[2:]}
    for path, twin in (("/v0-back", "/v0"), ("/v1-back", "/v1")):
        assert back[path].body == posted[twin].body
        assert back[path].headers["Content-Type"] == posted[twin].headers["Content-Type"]
        assert back[path].headers["X-A2A-Notification-Id"] == posted[twin].headers["X-A2A-Notification-Id"]
        verify_notification(
            back[path].headers, back[path].body, jwks=jwks, audience=receiver.url(path), issuer=ISSUER
        )


def test_a_receiver_that_is_down_leaves_a_push_dlq_record_and_the_record_succeeds(
    deployment: PushDeployment,
) -> None:
    task_id = deployment.start_task()
    url = f"http://127.0.0.1:{closed_port()}/hook"
    asyncio.run(_put_config(deployment, task_id, PushNotificationConfig(url=url, id="down", token="tok")))
    deployment.run_worker()

    response = deployment.push_handler(A2A_PUSH_MAX_ATTEMPTS="2")(
        deployment.event(deployment.new_records()), lambda_context("a2a-push")
    )

    assert response == {"batchItemFailures": []}
    [letter] = deployment.dead_letters()
    assert (letter.task_id, letter.config_id, letter.url, letter.attempts) == (task_id, "down", url, 2)
    assert letter.event_id.startswith(f"{task_id}:")
    assert json.loads(letter.body or "")["status"]["state"] == "completed"
    assert "tok" not in letter.model_dump_json()  # secrets stay in the config store


def test_a_push_dlq_that_cannot_be_written_fails_the_record_and_later_ones_of_its_task(
    deployment: PushDeployment,
) -> None:
    pushed = deployment.start_task()
    quiet = deployment.start_task()  # no configs: nothing to deliver, nothing to fail
    url = f"http://127.0.0.1:{closed_port()}/hook"
    asyncio.run(_put_config(deployment, pushed, PushNotificationConfig(url=url, id="c1")))
    for task_id in (pushed, quiet):
        for state in (TaskState.working, TaskState.input_required, TaskState.working):
            asyncio.run(deployment.ledger.write(task_id, _to(state)))
    commits = [r for r in deployment.new_records() if "task_id" in r["dynamodb"]["NewImage"]]
    handler = deployment.push_handler(
        signer=LocalSigner(),
        A2A_PUSH_MAX_ATTEMPTS="1",
        A2A_PUSH_DLQ_URL=deployment.names.push_dlq_url + "-gone",
    )

    response = handler(deployment.event(commits), lambda_context("a2a-push"))

    failed = {f["itemIdentifier"] for f in response["batchItemFailures"]}
    states = {
        r["dynamodb"]["SequenceNumber"]: (
            r["dynamodb"]["NewImage"]["task_id"]["S"],
            r["dynamodb"]["NewImage"]["state"]["S"],
        )
        for r in commits
    }
    # input-required could not be dead-lettered; the working after it waits for its retry.
    assert sorted(states[seq] for seq in failed) == [(pushed, "input-required"), (pushed, "working")]


def _to(state: TaskState) -> Callable[[Commit], Change]:
    return lambda head: Change([status(state)])


async def _put_config(deployment: PushDeployment, task_id: str, config: PushNotificationConfig) -> None:
    await build_push_store(deployment.settings, deployment.aws.clients).put(task_id, config)


def test_the_dev_stream_poller_drives_the_handler_until_the_stream_is_drained(
    deployment: PushDeployment, receiver: Receiver
) -> None:
    task_id = deployment.start_task()
    asyncio.run(_put_config(deployment, task_id, PushNotificationConfig(url=receiver.url(), id="c1")))
    deployment.run_worker()
    poller = DynamoDBStreamPoller.for_table(
        deployment.aws.clients.dynamodb,
        deployment.streams,
        deployment.names.table,
        deployment.push_handler(signer=LocalSigner()),
        function_name="a2a-push",
        region=deployment.aws.region,
    )
    while poller.poll_once():
        pass
    [request] = receiver.wait_for(1)
    assert json.loads(request.body)["id"] == task_id


def test_dev_s_poller_passes_the_function_only_what_the_deployed_filter_passes(
    deployment: PushDeployment,
) -> None:
    # Issue 22 item 9: dev handed the push function config items too (token and credentials in
    # them), which it logged with POWERTOOLS_LOGGER_LOG_EVENT on; the mapping's filter drops them.
    task_id = deployment.start_task()
    config = PushNotificationConfig(url="https://hooks.example.com/a2a", id="c1", token="tok-secret")
    asyncio.run(_put_config(deployment, task_id, config))
    deployment.run_worker()
    seen: list[dict[str, Any]] = []

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        seen.extend(event["Records"])
        return {"batchItemFailures": []}

    dev = push_poller(AwsAdapters(deployment.settings, deployment.aws.clients), deployment.aws, LocalSigner())
    poller = DynamoDBStreamPoller.for_table(
        deployment.aws.clients.dynamodb,
        deployment.streams,
        deployment.names.table,
        handler,
        function_name="a2a-push",
        region=deployment.aws.region,
        accept=dev.accept,  # what dev's poller lets through, handed to a recording handler
    )
    while poller.poll_once():
        pass
    keys = [record["dynamodb"]["Keys"]["sk"]["S"] for record in seen]
    assert keys
    assert all(key.startswith("EVT#") for key in keys)
    assert {record["eventName"] for record in seen} == {"INSERT"}
    assert "tok-secret" not in json.dumps(seen, default=str)
    assert any("tok-secret" in str(record) for record in deployment.new_records())  # it was there


def test_dev_hands_the_push_function_exactly_the_records_the_deployed_filter_passes(
    deployment: PushDeployment, receiver: Receiver
) -> None:
    """Issue 28: dev's poller filtered with a look-alike of the mapping's patterns (INSERT and the
    commit prefix only), so it handed the push function the commits marked ``notify`` false (a
    task without a push config; the states nobody is notified of), which the deployed mapping
    never sends. Dev now evaluates the deployed patterns themselves."""
    api = deployment.api(A2A_PUSH_ALLOW_INSECURE_LOOPBACK="true")
    plain = _send_plain(api)
    pushed = _send_plain(api)
    config = {"url": receiver.url("/pushed")}
    rpc(api, "tasks/pushNotificationConfig/set", {"taskId": pushed, "pushNotificationConfig": config})
    deployment.run_worker()
    settings = Settings.from_env(deployment.env(A2A_PUSH_ALLOW_INSECURE_LOOPBACK="true"))
    on_this_table = dataclasses.replace(deployment.aws, names=deployment.names)
    dev = push_poller(AwsAdapters(settings, deployment.aws.clients), on_this_table, LocalSigner())
    handed: list[dict[str, Any]] = []
    function = dev.handler

    def recording(event: dict[str, Any], context: Any) -> Any:
        handed.extend(event["Records"])
        return function(event, context)

    dev.handler = recording
    while dev.poll_once():
        pass

    records = deployment.new_records()
    dropped = [r for r in records if r not in _filtered(records, deployment)]
    # The stream holds commits the deployed filter drops (marked notify false) beside the ones it passes.
    images = [r["dynamodb"].get("NewImage", {}) for r in dropped]
    assert any(image.get("notify") == {"BOOL": False} for image in images)
    assert {"S": plain} in [image.get("task_id") for image in images]
    sequence = [r["dynamodb"]["SequenceNumber"] for r in _filtered(records, deployment)]
    assert [r["dynamodb"]["SequenceNumber"] for r in handed] == sequence
    assert [r["dynamodb"]["NewImage"]["task_id"]["S"] for r in handed] == [pushed]
    assert [r.path for r in receiver.wait_for(1)] == ["/pushed"]


def test_the_lambda_entry_point_dead_letters_a_rebound_webhook_and_emits_metrics(
    monkeypatch: pytest.MonkeyPatch, deployment: PushDeployment, capsys: pytest.CaptureFixture[str]
) -> None:
    task_id = deployment.start_task()
    # As if the name had resolved to a public address at `set` and points into the VPC now.
    asyncio.run(
        _put_config(deployment, task_id, PushNotificationConfig(url="https://10.0.0.9/hook", id="c1"))
    )
    deployment.run_worker()
    function = load_function(monkeypatch, "push", deployment.env(POWERTOOLS_METRICS_NAMESPACE="A2ATest"))

    response = function.handler(deployment.event(deployment.new_records()), lambda_context("a2a-push"))

    assert response == {"batchItemFailures": []}
    [letter] = deployment.dead_letters()
    assert letter.reason.startswith("refused:")
    emf = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    assert any(
        doc.get("NotificationsFailed") == [1.0]
        and doc["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "A2ATest"
        for doc in emf
    )


def test_the_lambda_entry_point_refuses_dev_settings_and_missing_resources(
    monkeypatch: pytest.MonkeyPatch, deployment: PushDeployment
) -> None:
    cases = [
        ({"A2A_PUSH_ALLOW_INSECURE_LOOPBACK": "true"}, "local development only"),
        ({"A2A_PUSH_SIGNING_KEY_ID": ""}, "A2A_PUSH_SIGNING_KEY_ID"),
        ({"A2A_PUSH_DLQ_URL": ""}, "A2A_PUSH_DLQ_URL"),
    ]
    for env, message in cases:
        with monkeypatch.context() as patch, pytest.raises(SettingsError, match=message):
            load_function(patch, "push", deployment.env(**env))


def _filtered(records: list[RecordTypeDef], deployment: PushDeployment) -> list[RecordTypeDef]:
    """The records the stack's event source mapping lets through to the push function."""
    return [
        record
        for record in records
        if any(
            matches(pattern, lambda_record(record, stream_arn=deployment.stream_arn, region="us-east-1"))
            for pattern in PUSH_STREAM_FILTERS
        )
    ]


def _task(record: RecordTypeDef) -> str:
    return str(record["dynamodb"]["NewImage"]["task_id"]["S"])


def test_the_push_function_is_invoked_only_for_tasks_with_a_push_config_however_it_was_set(
    deployment: PushDeployment, receiver: Receiver
) -> None:
    """Four tasks run by the worker: one without a config, one with a 1.0 config in its
    SendMessage, and two whose configs were set after they started (0.3 ``set``, 1.0
    ``CreateTaskPushNotificationConfig``), before the worker ran them. Of all their commits, the
    stack's stream filter lets through exactly the three configured tasks' completions, which
    the push function delivers."""
    api = deployment.api(A2A_PUSH_ALLOW_INSECURE_LOOPBACK="true")
    plain = _send_plain(api)
    v1_message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    in_message = rpc_v1(
        api,
        "SendMessage",
        {
            "message": v1_message,
            "configuration": {
                "returnImmediately": True,
                "taskPushNotificationConfig": {"url": receiver.url("/in-message")},
            },
        },
    )["task"]["id"]
    set_v0, set_v1 = (_send_plain(api) for _ in range(2))
    config = {"url": receiver.url("/set-v0")}
    rpc(api, "tasks/pushNotificationConfig/set", {"taskId": set_v0, "pushNotificationConfig": config})
    rpc_v1(api, "CreateTaskPushNotificationConfig", {"taskId": set_v1, "url": receiver.url("/set-v1")})
    deployment.run_worker()  # one batch of the four run operations
    assert all(
        deployment.head(task).state is TaskState.completed for task in (plain, in_message, set_v0, set_v1)
    )

    records = deployment.new_records()
    passed = _filtered(records, deployment)
    assert sorted(_task(r) for r in passed) == sorted([in_message, set_v0, set_v1])
    assert {r["dynamodb"]["NewImage"]["state"]["S"] for r in passed} == {"completed"}
    assert len(records) > len(passed) + 8  # every task's submitted, working and completed commits

    handler = deployment.push_handler()
    assert handler(deployment.event(passed), lambda_context("a2a-push")) == {"batchItemFailures": []}
    assert sorted(r.path for r in receiver.wait_for(3)) == ["/in-message", "/set-v0", "/set-v1"]


def test_commits_written_without_marks_still_reach_the_push_function(deployment: PushDeployment) -> None:
    """A function still on code from before the marks (during a deploy) writes commits without
    ``notify``: the filter lets them through, as every commit went through before."""
    unmarked = TaskLedger(
        build_task_store(Settings.from_env(deployment.env(A2A_PUSH_ENABLED="false")), deployment.aws.clients)
    )
    task_id = deployment.start_task()
    asyncio.run(unmarked.write(task_id, _to(TaskState.canceled)))
    records = [r for r in deployment.new_records() if _task(r) == task_id]
    # New commits (a listing move also modifies the first commit: not a commit written).
    marked = [r for r in records if r["eventName"] == "INSERT" and "notify" in r["dynamodb"]["NewImage"]]
    assert [r["dynamodb"]["NewImage"]["notify"] for r in marked] == [{"BOOL": False}]  # submitted
    assert [r["dynamodb"]["NewImage"]["state"]["S"] for r in _filtered(records, deployment)] == ["canceled"]


def _send_plain(api: AgentServer) -> str:
    """A 0.3 ``message/send`` without a push config; the task's id."""
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": "hi"}]}
    task_id: str = rpc(api, "message/send", {"message": message, "configuration": {"blocking": False}})[
        "result"
    ]["id"]
    return task_id
