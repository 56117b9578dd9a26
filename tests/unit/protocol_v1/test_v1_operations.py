"""One table of the 1.0 operations (`a2a_core.protocol.v1.operations`): the server's method table,
its HTTP+JSON routes, the client's 1.0 codec and the hint a 0.x caller gets are all read from it,
so an operation is added (or changed) in one place."""

from __future__ import annotations

import json
from typing import Any

import pytest

from a2a_core.client import codec_v1
from a2a_core.core.caller import Caller
from a2a_core.core.errors import MethodNotFoundError
from a2a_core.core.requests import ExtendedCardRequest
from a2a_core.examples.echo import agent as echo
from a2a_core.protocol.v1.methods import v1_methods
from a2a_core.protocol.v1.operations import OPERATIONS, Http, Operation
from a2a_core.protocol.v1.rest_routes import ROUTES, resolve, routes
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.versions import Version
from support import CALLER, Stack

pytestmark = pytest.mark.anyio


async def pong(request: Any, caller: Caller) -> dict[str, str]:
    return {"pong": caller.principal}


# A made-up operation, in a copy of the table: nothing else is written for it.
PING = Operation(
    "PingAgent",
    wq.GetExtendedAgentCardRequest,
    http=(Http("GET", "/ping", query={"tenant": "scalar"}),),
    serve=lambda services: pong,
    decode_params=lambda request: ExtendedCardRequest(tenant=request.tenant),
    encode_result=lambda result: json.dumps(result).encode(),
    encode_params=lambda request: {},
    decode_result=lambda value: value,
)
WITH_PING = {**OPERATIONS, PING.name: PING}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_the_server_the_routes_and_the_client_are_the_tables(name: str) -> None:
    operation = OPERATIONS[name]
    stack = Stack(echo, push_enabled=True)
    method = v1_methods(stack.engine, streams=None)[name]
    assert method.encode is operation.encode_result
    sent = codec_v1.CODEC[name]
    assert (sent.method, sent.encode, sent.decode) == (name, operation.encode_params, operation.decode_result)
    served = {(route.method, route.template) for route in ROUTES if route.operation == name}
    assert served == {
        (http.method, prefix + http.path) for http in operation.http for prefix in ("", "/{tenant}")
    }
    hint = stack.service.dispatcher.binding(Version.V0_3).foreign(name)
    assert hint is not None
    assert "A2A-Version: 1.0" in hint


def test_nothing_else_serves_or_calls_an_operation() -> None:
    stack = Stack(echo)
    assert set(v1_methods(stack.engine, streams=None)) == set(OPERATIONS)
    assert set(codec_v1.CODEC) == set(OPERATIONS)
    assert {route.operation for route in ROUTES} == set(OPERATIONS)


async def test_an_operation_added_to_the_table_is_served_routed_and_callable() -> None:
    stack = Stack(echo)
    method = v1_methods(stack.engine, streams=None, operations=WITH_PING)[PING.name]
    request = method.decode({})
    assert request == ExtendedCardRequest()
    assert json.loads(method.encode(await method.handler(request, CALLER))) == {"pong": CALLER.principal}
    table = routes(WITH_PING)
    assert {(r.method, r.template) for r in table if r.operation == PING.name} == {
        ("GET", "/ping"),
        ("GET", "/{tenant}/ping"),
    }
    assert resolve("GET", "/acme/ping", [], None, table).params == {"tenant": "acme"}
    with pytest.raises(MethodNotFoundError):
        resolve("GET", "/ping", [], None)  # not in the table the server serves
    assert codec_v1.codec(WITH_PING)[PING.name].method == PING.name
