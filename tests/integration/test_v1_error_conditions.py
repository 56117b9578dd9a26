"""The 1.0 errors that need another server than `test_v1_error_table`'s, over both bindings, and the
two this server never answers.

- UnsupportedOperationError with streaming off; InvalidAgentResponseError for a blocking send
  whose agent returns garbage; InternalError (-32603, no detail leaks) for a store adapter that
  raises, 503 UNAVAILABLE over HTTP+JSON when the store says it is unavailable.
- ExtendedAgentCardNotConfiguredError is unreachable: the card declares
  ``capabilities.extendedAgentCard`` exactly when an extended card is configured (auth on and
  ``A2A_EXTENDED_SKILLS`` set), so GetExtendedAgentCard either serves it or answers
  UnsupportedOperationError (the capability is false), as spec 3.3.4 requires.
- ExtensionSupportRequiredError is unreachable: the server requires no extension (the one it
  declares is informational, ``required: false``) and never refuses a request for not
  declaring one.
For those two, only the encoders are tested, against the same exact shapes.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest

from a2a_core.compose import build_server
from a2a_core.core.errors import (
    ExtendedAgentCardNotConfiguredError,
    ExtensionSupportRequiredError,
    StoreUnavailableError,
)
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.core.turn.executor import TaskContext
from a2a_core.domain import AgentSkill, TaskState
from a2a_core.examples.echo import agent as echo
from a2a_core.protocol.v1.errors import jsonrpc_error_body, rest_error
from a2a_core.server import AgentServer
from auth_support import API_KEYS, KEYS, client_for
from support import Stack
from v1_support import call_rest, call_rpc, expect_rest_error, expect_rpc_error, message

pytestmark = pytest.mark.anyio

SECRET = "disk on fire at /var/secret/path"


@pytest.mark.parametrize(
    ("method", "verb", "path", "params"),
    [
        ("SendStreamingMessage", "POST", "/message:stream", {"message": message()}),
        ("SubscribeToTask", "POST", "/tasks/t1:subscribe", {"id": "t1"}),
        ("SubscribeToTask", "GET", "/tasks/t1:subscribe", {"id": "t1"}),
    ],
)
async def test_streaming_off_is_unsupported_operation(method: str, verb: str, path: str, params: Any) -> None:
    stack = Stack(echo, streaming_enabled=False)
    body = params if verb == "POST" and "message" in params else None
    async with client_for(stack.service) as client:
        over_rpc = await call_rpc(client, method, params)
        over_rest = await call_rest(client, verb, path, body)
    expect_rpc_error(over_rpc, "UNSUPPORTED_OPERATION")
    assert "capabilities.streaming is false" in expect_rest_error(over_rest, "UNSUPPORTED_OPERATION")
    assert (len(stack.store._logs), len(stack.broker)) == (0, 0)


async def _garbage(ctx: TaskContext) -> Any:
    return 42


async def _run_the_queued_turn(stack: Stack) -> None:
    operation = await stack.broker.receive(timeout=5)
    assert operation is not None
    await stack.worker.handle(operation)


async def _blocking(stack: Stack, send: Any) -> httpx.Response:
    """A blocking send, answered once a worker has run the turn it queued."""
    async with anyio.create_task_group() as group:
        group.start_soon(_run_the_queued_turn, stack)
        response: httpx.Response = await send()
    return response


async def test_an_agent_returning_garbage_is_invalid_agent_response_to_a_blocking_caller() -> None:
    stack = Stack(_garbage, blocking_timeout_seconds=5)
    async with client_for(stack.service) as client:
        over_rpc = await _blocking(stack, lambda: call_rpc(client, "SendMessage", {"message": message()}))
        over_rest = await _blocking(
            stack, lambda: call_rest(client, "POST", "/message:send", {"message": message()})
        )
    task_ids = []
    for response, expect in ((over_rpc, expect_rpc_error), (over_rest, expect_rest_error)):
        details = response.json()["error"]["data" if expect is expect_rpc_error else "details"]
        task_id = details[0]["metadata"]["taskId"]
        expect(response, "INVALID_AGENT_RESPONSE", metadata={"taskId": task_id})
        assert (await stack.ledger.load(task_id)).status.state == TaskState.failed
        task_ids.append(task_id)
    assert len(set(task_ids)) == 2


class _BrokenStore(InMemoryTaskStore):
    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    async def owned(self, task_id: str, owner: str) -> bool:
        raise self.error  # the first read of a caller's request: whose task it is

    async def head(self, task_id: str) -> Any:
        raise self.error

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[Any]:
        raise self.error

    async def list_owned(self, *args: Any, **kwargs: Any) -> Any:
        raise self.error


def _broken(error: Exception) -> AgentServer:
    stack = Stack(echo)
    return build_server(stack.service.settings, store=_BrokenStore(error), broker=stack.broker)


@pytest.mark.parametrize(
    ("method", "params", "path"),
    [("GetTask", {"id": "t1"}, "/tasks/t1"), ("ListTasks", {}, "/tasks"), ("CancelTask", {"id": "t1"}, None)],
)
async def test_a_store_that_raises_is_an_internal_error_without_details(
    method: str, params: Any, path: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    async with client_for(_broken(RuntimeError(SECRET))) as client:
        over_rpc = await call_rpc(client, method, params, request_id=9)
        over_rest = await call_rest(client, *(("GET", path) if path else ("POST", "/tasks/t1:cancel")))
    assert expect_rpc_error(over_rpc, "INTERNAL_ERROR", request_id=9) == "Internal error"
    assert expect_rest_error(over_rest, "INTERNAL_ERROR") == "Internal error"
    for response in (over_rpc, over_rest):
        assert SECRET not in response.text
    assert SECRET in caplog.text  # the operator sees it in the log


async def test_a_store_that_is_unavailable_is_retryable() -> None:
    async with client_for(_broken(StoreUnavailableError())) as client:
        over_rpc = await call_rpc(client, "GetTask", {"id": "t1"})
        over_rest = await call_rest(client, "GET", "/tasks/t1")
    expect_rpc_error(over_rpc, "INTERNAL_ERROR")
    message = expect_rest_error(over_rest, "INTERNAL_ERROR", http_status=503, grpc_status="UNAVAILABLE")
    assert message == "The task store is unavailable; retry the request"


SKILL = AgentSkill(id="payroll", name="Payroll", description="Internal only", tags=["hr"])


async def test_the_extended_card_is_declared_exactly_when_it_is_configured() -> None:
    configured = Stack(echo, auth_mode="api_key", api_keys=API_KEYS, extended_skills=[SKILL])
    async with client_for(configured.service, **{"x-api-key": KEYS["alice"]}) as client:
        card = (await client.get("/.well-known/agent-card.json")).json()
        over_rpc = await call_rpc(client, "GetExtendedAgentCard")
        over_rest = await call_rest(client, "GET", "/extendedAgentCard")
    assert card["capabilities"]["extendedAgentCard"] is True
    assert over_rest.status_code == 200
    for extended in (over_rpc.json()["result"], over_rest.json()):
        # The public card's skills (none configured: the agent itself), then the extended ones.
        assert [skill["id"] for skill in extended["skills"]] == ["a2a-agent", "payroll"]

    # Skills but no auth: nothing to keep from anyone, so no extended card and no capability.
    unconfigured = Stack(echo, extended_skills=[SKILL])
    async with client_for(unconfigured.service) as client:
        card = (await client.get("/.well-known/agent-card.json")).json()
        over_rpc = await call_rpc(client, "GetExtendedAgentCard")
        over_rest = await call_rest(client, "GET", "/extendedAgentCard")
    assert "extendedAgentCard" not in card["capabilities"]
    expect_rpc_error(over_rpc, "UNSUPPORTED_OPERATION")
    expect_rest_error(over_rest, "UNSUPPORTED_OPERATION")


async def test_no_extension_is_required() -> None:
    async with client_for(Stack(echo).service) as client:
        card = (await client.get("/.well-known/agent-card.json")).json()
    extensions = card["capabilities"]["extensions"]
    assert extensions
    assert not [extension for extension in extensions if extension.get("required")]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ExtendedAgentCardNotConfiguredError(), "EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
        (ExtensionSupportRequiredError(data={"extension": "urn:x:v1"}), "EXTENSION_SUPPORT_REQUIRED"),
    ],
)
def test_the_unreachable_errors_encode_as_the_spec_says(error: Any, reason: str) -> None:
    metadata = {"extension": "urn:x:v1"} if error.data else None
    json_rpc = httpx.Response(
        200, content=jsonrpc_error_body(1, error), headers={"content-type": "application/json"}
    )
    status, body = rest_error(error)
    rest = httpx.Response(status, content=json.dumps(body), headers={"content-type": "application/a2a+json"})
    assert expect_rpc_error(json_rpc, reason, metadata=metadata) == error.message
    assert expect_rest_error(rest, reason, metadata=metadata) == error.message
