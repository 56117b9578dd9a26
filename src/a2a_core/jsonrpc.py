"""JSON-RPC 2.0 over one POST endpoint: one method table, one place that maps errors to codes.

Every request body, however malformed, gets a well-formed JSON-RPC response with the request's
``id`` echoed when it could be read (``null`` otherwise). Unexpected exceptions become -32603
with no detail; the traceback goes to the log only.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from a2a_core.core.caller import Caller
from a2a_core.core.errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    JSONParseError,
    MethodNotFoundError,
)

logger = logging.getLogger(__name__)

RequestId = str | int | None
# Deeper requests are refused: no A2A request needs it, and deeper values break the JSON parser
# (RecursionError) or serialization when the task is stored (pydantic stops at 255 levels).
MAX_JSON_DEPTH = 64


@dataclass(frozen=True)
class StreamItem:
    """One event of a streamed answer: a result, or an error, with its SSE event id."""

    id: str | None
    result: BaseModel | None = None
    error: A2AError | None = None


Handler = Callable[[Any, Caller], Awaitable[BaseModel | None]]
StreamHandler = Callable[[Any, Caller], Awaitable[AsyncIterator[StreamItem]]]


@dataclass(frozen=True)
class Method:
    params: type[BaseModel]
    handler: Handler | StreamHandler
    streaming: bool = False


@dataclass(frozen=True)
class StreamReply:
    """A streamed answer: each item becomes one JSON-RPC response carrying the request id."""

    request_id: RequestId
    items: AsyncIterator[StreamItem]

    def encode(self, item: StreamItem) -> bytes:
        if item.error is not None:
            return error_body(self.request_id, item.error)
        return result_body(self.request_id, item.result)


@dataclass(frozen=True)
class Call:
    """A request that passed every check up to its params."""

    id: RequestId
    method: str
    params: BaseModel


class Dispatcher:
    def __init__(self, methods: Mapping[str, Method]) -> None:
        self.methods = dict(methods)

    def parse(self, body: bytes) -> Call:
        """Validate a request body; raises `RequestError` carrying the id it could read."""
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError) as error:
            raise RequestError(None, JSONParseError(f"Invalid JSON payload: {error}")) from None
        except RecursionError:
            raise RequestError(None, _too_deep_error()) from None
        if not isinstance(payload, dict):
            kind = "Batch requests are not supported" if isinstance(payload, list) else "not an object"
            raise RequestError(None, InvalidRequestError(f"Request must be a JSON-RPC object ({kind})"))
        request_id = payload.get("id")
        if request_id is not None and (isinstance(request_id, bool) or not isinstance(request_id, str | int)):
            raise RequestError(None, InvalidRequestError("Request id must be a string, an integer or null"))
        if _deeper_than(payload, MAX_JSON_DEPTH):
            raise RequestError(request_id, _too_deep_error())
        if payload.get("jsonrpc") != "2.0":
            raise RequestError(request_id, InvalidRequestError('Field "jsonrpc" must be exactly "2.0"'))
        name = payload.get("method")
        if not isinstance(name, str):
            raise RequestError(request_id, InvalidRequestError('Field "method" must be a string'))
        method = self.methods.get(name)
        if method is None:
            raise RequestError(request_id, MethodNotFoundError(f"Method {name!r} not found"))
        params = payload.get("params")
        if not isinstance(params, dict):
            detail = "is required" if params is None else "must be an object"
            raise RequestError(request_id, InvalidParamsError(f'Field "params" {detail} for {name}'))
        try:
            return Call(request_id, name, method.params.model_validate(params))
        except ValidationError as error:
            raise RequestError(request_id, invalid_params(error)) from None

    async def dispatch(self, body: bytes, caller: Caller) -> bytes | StreamReply:
        """The JSON response body for a request body, or a stream for a streaming method.

        Errors found before a stream starts (bad params, an unknown task to continue) are plain
        JSON bodies, as the protocol requires.
        """
        try:
            call = self.parse(body)
        except RequestError as error:
            return error_body(error.request_id, error.error)
        return await self.run(call, caller)

    async def run(self, call: Call, caller: Caller) -> bytes | StreamReply:
        method = self.methods[call.method]
        try:
            result = await method.handler(call.params, caller)
        except A2AError as error:
            return error_body(call.id, error)
        except Exception:
            logger.exception("internal error in %s", call.method)
            return error_body(call.id, InternalError())
        if method.streaming:
            assert not isinstance(result, BaseModel | None)
            return StreamReply(call.id, _guarded(result, call.method))
        assert isinstance(result, BaseModel | None)
        return result_body(call.id, result)


async def _guarded(items: AsyncIterator[StreamItem], method: str) -> AsyncIterator[StreamItem]:
    """A failure mid-stream becomes a final error event instead of a torn connection."""
    try:
        async for item in items:
            yield item
    except A2AError as error:
        yield StreamItem(None, error=error)
    except Exception:
        logger.exception("internal error while streaming %s", method)
        yield StreamItem(None, error=InternalError())


def _deeper_than(value: object, limit: int) -> bool:
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth >= limit:
                    return True
                pending.append((child, depth + 1))
    return False


def _too_deep_error() -> InvalidRequestError:
    return InvalidRequestError(
        f"Request nests objects and arrays deeper than {MAX_JSON_DEPTH} levels",
        data={"maxDepth": MAX_JSON_DEPTH},
    )


class RequestError(Exception):
    def __init__(self, request_id: RequestId, error: A2AError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def invalid_params(error: ValidationError) -> InvalidParamsError:
    details = [
        {"field": ".".join(str(part) for part in e["loc"]), "message": e["msg"], "type": e["type"]}
        for e in error.errors(include_url=False, include_input=False, include_context=False)
    ]
    first = details[0]
    return InvalidParamsError(
        f"Invalid params: {first['field'] or 'params'}: {first['message']}", data=details
    )


def result_body(request_id: RequestId, result: BaseModel | None) -> bytes:
    head = b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b',"result":'
    if result is None:
        return head + b"null}"
    return head + result.model_dump_json(by_alias=True, exclude_none=True).encode() + b"}"


def error_body(request_id: RequestId, error: A2AError) -> bytes:
    payload: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        payload["data"] = error.data
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": payload}).encode()
