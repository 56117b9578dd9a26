"""Push notifications end to end: `a2a-serverless dev` (local: moto, its table stream, the push
handler; memory: its store's commit feed and the same notifier) POSTs to a receiver on
127.0.0.1, which verifies each one with the shipped verifier against the server's live
``/.well-known/jwks.json``. Configs come from raw 0.x JSON-RPC and from an unmodified a2a-sdk 1.3
client (in-process) over 1.0 JSON-RPC, 1.0 REST and its 0.3 transport; each gets its
generation's payload (the Task for 0.x, a StreamResponse for 1.0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from a2a.client import BaseClient
from a2a.types import (
    AuthenticationInfo,
    GetTaskRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from google.protobuf import json_format

from a2a_core.push.verify import RemoteJwks, verify_notification
from clients import sdk13
from push_receiver import Receiver, closed_port, receiving

pytestmark = pytest.mark.e2e

MULTITURN_AGENT = "a2a_core.examples.multiturn:agent"
STARTUP_TIMEOUT = 30.0


@pytest.fixture(scope="module", params=["local", "memory"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a dev server with push on and its public URL set: on the local backend (its
    state in a directory of its own), and on the memory backend, which delivers the same way
    (issue 22 item 7: it used to advertise push and deliver nothing)."""
    port = closed_port()  # free a moment ago; A2A_PUBLIC_URL must name it before the server starts
    url = f"http://127.0.0.1:{port}/"
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "A2A_PUSH_ENABLED": "true",
        "A2A_PUBLIC_URL": url,
        "A2A_ALLOW_UNAUTHENTICATED": "true",
    }
    command = [sys.executable, "-m", "a2a_core.cli", "dev", "--port", str(port), "--agent", MULTITURN_AGENT]
    # A fixed argv of our own interpreter and module.
    process = subprocess.Popen(  # noqa: S603
        [*command, *backend_args(request.param, tmp_path_factory)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    output: list[str] = []
    drain = threading.Thread(target=lambda: output.extend(process.stdout or ()), daemon=True)
    drain.start()
    try:
        _wait_ready(url, process, output)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        drain.join(5)
        if process.stdout is not None:
            process.stdout.close()


def backend_args(backend: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    if backend == "local":
        return ["--backend", "local", "--state-dir", str(tmp_path_factory.mktemp("dev-state"))]
    return ["--backend", backend]


def _wait_ready(url: str, process: subprocess.Popen[str], output: list[str]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"dev server exited ({process.returncode}):\n{''.join(output)}", pytrace=False)
            try:
                if client.get(f"{url}healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
    pytest.fail(
        f"dev server did not answer within {STARTUP_TIMEOUT:.0f} s:\n{''.join(output)}", pytrace=False
    )


def rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply: dict[str, Any] = httpx.post(url, json=body, timeout=10.0).json()
    assert "error" not in reply, reply
    return reply


def send(url: str, text: str, *, task_id: str | None = None, **configuration: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}],
    }
    if task_id:
        message["taskId"] = task_id
    result: dict[str, Any] = rpc(url, "message/send", {"message": message, "configuration": configuration})[
        "result"
    ]
    return result


def verified(receiver: Receiver, request: Any, server: str, **options: Any) -> dict[str, Any]:
    return verify_notification(
        request.headers,
        request.body,
        jwks=RemoteJwks(f"{server}.well-known/jwks.json"),
        audience=receiver.url(),
        issuer=server,
        **options,
    )


def test_each_turn_end_is_pushed_signed_and_verifies_against_the_live_jwks(server: str) -> None:
    with receiving() as receiver:
        config = {"url": receiver.url(), "token": "tok-e2e"}
        task = send(server, "serverless push", blocking=False, pushNotificationConfig=config)

        [asked] = receiver.wait_for(1, timeout=15)
        claims = verified(receiver, asked, server, expected_token="tok-e2e")
        pushed = json.loads(asked.body)
        assert pushed["id"] == claims["taskId"] == task["id"]
        assert pushed["status"]["state"] == "input-required"
        assert asked.headers["X-A2A-Notification-Id"] == claims["jti"]
        assert claims["jti"].startswith(f"{task['id']}:")

        send(server, "engineers", task_id=task["id"], blocking=False)
        done = receiver.wait_for(2, timeout=15)[1]
        claims = verified(receiver, done, server, expected_token="tok-e2e")
        pushed = json.loads(done.body)
        assert pushed["status"]["state"] == "completed"
        assert pushed == rpc(server, "tasks/get", {"id": task["id"]})["result"]
        seqs = [int(r.headers["X-A2A-Notification-Id"].rsplit(":", 1)[1]) for r in receiver.requests]
        assert seqs == sorted(set(seqs))  # in order, no duplicates
        assert len(receiver.requests) == 2  # nothing for the working and artifact events


def test_a_config_set_later_with_credentials_gets_basic_auth_and_the_signature_header(server: str) -> None:
    with receiving() as receiver:
        task = send(server, "a later subscriber", blocking=True)  # returns at input-required
        assert task["status"]["state"] == "input-required"
        config = {
            "url": receiver.url(),
            "authentication": {"schemes": ["Basic"], "credentials": "dXNlcjpwdw=="},
        }
        stored = rpc(
            server,
            "tasks/pushNotificationConfig/set",
            {"taskId": task["id"], "pushNotificationConfig": config},
        )["result"]
        assert stored["pushNotificationConfig"]["id"]

        send(server, "operators", task_id=task["id"], blocking=False)

        # The input-required commit may reach the push poller after the config was stored, and
        # is then delivered to it too (configs are read when a commit is delivered): every
        # notification up to the completed one must carry the credentials and the signature.
        delivered = receiver.wait_until(lambda r: json.loads(r.body)["status"]["state"] == "completed", 15)
        assert [json.loads(r.body)["status"]["state"] for r in delivered] in (
            ["completed"],
            ["input-required", "completed"],
        )
        for notification in delivered:
            assert notification.headers["Authorization"] == "Basic dXNlcjpwdw=="
            headers = {k: v for k, v in notification.headers.items() if k.lower() != "authorization"}
            claims = verify_notification(
                headers,
                notification.body,
                jwks=RemoteJwks(f"{server}.well-known/jwks.json"),
                audience=receiver.url(),
                issuer=server,
            )
            assert claims["taskId"] == task["id"]


def test_the_dev_server_refuses_a_private_webhook_at_set(server: str) -> None:
    task = send(server, "refusals", blocking=False)
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tasks/pushNotificationConfig/set",
        "params": {"taskId": task["id"], "pushNotificationConfig": {"url": "http://169.254.169.254/latest/"}},
    }
    reply = httpx.post(server, json=body, timeout=10.0).json()
    assert reply["error"]["code"] == -32602
    assert "link-local" in reply["error"]["message"]


# --- each generation's payload, to configs an unmodified a2a-sdk 1.3 client created ---------------


def verified_at(receiver: Receiver, request: Any, server: str, path: str, **options: Any) -> dict[str, Any]:
    headers = request.headers
    if "X-A2A-Signature" in headers:  # Authorization carries the config's credentials
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
    return verify_notification(
        headers,
        request.body,
        jwks=RemoteJwks(f"{server}.well-known/jwks.json"),
        audience=receiver.url(path),
        issuer=server,
        **options,
    )


async def arrived(receiver: Receiver, count: int) -> list[Any]:
    return await anyio.to_thread.run_sync(lambda: receiver.wait_for(count, timeout=15))


def sdk_send(text: str, *, task_id: str | None = None, push: TaskPushNotificationConfig | None = None) -> Any:
    configuration = SendMessageConfiguration(return_immediately=True, task_push_notification_config=push)
    return SendMessageRequest(message=sdk13.user_message(text, task_id=task_id), configuration=configuration)


async def sdk_turn(client: BaseClient, request: SendMessageRequest) -> Task:
    [reply] = await sdk13.collect(client.send_message(request))
    assert reply.HasField("task"), reply
    return reply.task


@pytest.mark.anyio
@pytest.mark.parametrize("binding", [sdk13.JSONRPC, sdk13.REST], ids=["jsonrpc", "rest"])
async def test_configs_an_a2a_sdk_1_3_client_creates_get_signed_stream_responses(
    server: str, binding: str
) -> None:
    with receiving() as receiver:
        async with sdk13.connect(server, binding=binding) as client:
            assert sdk13.transport_name(client) in ("JsonRpcTransport", "RestTransport")  # 1.0, not compat
            sent = TaskPushNotificationConfig(url=receiver.url("/sent"), token="tok-1.0")
            task = await sdk_turn(client, sdk_send("serverless push", push=sent))

            [asked] = await arrived(receiver, 1)
            claims = verified_at(receiver, asked, server, "/sent", expected_token="tok-1.0")
            assert asked.headers["Content-Type"] == "application/a2a+json"
            pushed = json_format.Parse(asked.body, StreamResponse())  # a2a-sdk's strict parser
            assert pushed.WhichOneof("payload") == "task"
            assert (pushed.task.id, claims["taskId"]) == (task.id, task.id)
            assert pushed.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

            later = TaskPushNotificationConfig(
                task_id=task.id,
                id="later",
                url=receiver.url("/later"),
                authentication=AuthenticationInfo(scheme="Bearer", credentials="c0ffee"),
            )
            await client.create_task_push_notification_config(later)
            await sdk_turn(client, sdk_send("engineers", task_id=task.id))

            done = {r.path: r for r in (await arrived(receiver, 3))[1:]}
            final = await client.get_task(GetTaskRequest(id=task.id))
        assert done["/later"].headers["Authorization"] == "Bearer c0ffee"
        for path, request in done.items():
            claims = verified_at(receiver, request, server, path)
            assert request.headers["X-A2A-Notification-Id"] == claims["jti"]
            pushed = json_format.Parse(request.body, StreamResponse())
            assert pushed.task == final
            assert pushed.task.status.state == TaskState.TASK_STATE_COMPLETED
        assert done["/sent"].body == done["/later"].body
        assert len(receiver.requests) == 3  # turn ends only


@pytest.mark.anyio
async def test_configs_created_through_0_3_still_get_the_task(server: str) -> None:
    with receiving() as receiver:
        async with sdk13.connect(server, version="0.3") as client:
            assert sdk13.transport_name(client) == "CompatJsonRpcTransport"
            sent = TaskPushNotificationConfig(url=receiver.url("/sent"), token="tok-0.3")
            task = await sdk_turn(client, sdk_send("legacy push", push=sent))
            await arrived(receiver, 1)
            later = TaskPushNotificationConfig(task_id=task.id, id="later", url=receiver.url("/later"))
            await client.create_task_push_notification_config(later)
            await sdk_turn(client, sdk_send("operators", task_id=task.id))
            requests = await arrived(receiver, 3)
        final = rpc(server, "tasks/get", {"id": task.id})["result"]
        for request in requests:
            verified_at(receiver, request, server, request.path)
            assert request.headers["Content-Type"] == "application/json"
            pushed = json.loads(request.body)
            assert (pushed["kind"], pushed["id"]) == ("task", task.id)
        assert [json.loads(r.body)["status"]["state"] for r in requests] == [
            "input-required",
            "completed",
            "completed",
        ]
        assert json.loads(requests[2].body) == final
