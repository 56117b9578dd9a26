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

from a2a_core import rawjson
from a2a_core.core.caller import Caller
from a2a_core.core.errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    JSONParseError,
    MethodNotFoundError,
)
from a2a_core.types.scalars import WIRE_INPUT

logger = logging.getLogger(__name__)

RequestId = str | int | None
# Deeper requests are refused (see `rawjson`): no A2A request needs it.
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
            payload = rawjson.parse(body, max_depth=MAX_JSON_DEPTH, wanted=("id",))
        except rawjson.TooDeepError as error:
            raise RequestError(_readable_id(error.top_level), _too_deep_error(error.path)) from None
        except (ValueError, UnicodeDecodeError) as error:
            raise RequestError(None, JSONParseError(f"Invalid JSON payload: {error}")) from None
        if not isinstance(payload, dict):
            kind = "Batch requests are not supported" if isinstance(payload, list) else "not an object"
            raise RequestError(None, InvalidRequestError(f"Request must be a JSON-RPC object ({kind})"))
        request_id = _readable_id(payload)
        if request_id is None and payload.get("id") is not None:
            raise RequestError(
                None, InvalidRequestError("Request id must be a string (of Unicode text), an integer or null")
            )
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
        if rawjson.may_hold_surrogates(body) and (path := rawjson.lone_surrogate_path(params)) is not None:
            raise RequestError(request_id, _not_unicode_error(path))
        try:
            return Call(request_id, name, method.params.model_validate(params, context=WIRE_INPUT))
        except ValidationError as error:
            raise RequestError(request_id, invalid_params(error, params)) from None

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


def _readable_id(payload: Mapping[str, Any]) -> RequestId:
    """The request's id when it has a valid one; None otherwise (and for an explicit null)."""
    request_id = payload.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    if isinstance(request_id, str) and rawjson.lone_surrogate_path(request_id) is not None:
        return None
    return request_id


def _too_deep_error(path: rawjson.Path) -> InvalidRequestError:
    return InvalidRequestError(
        f"Request nests objects and arrays deeper than {MAX_JSON_DEPTH} levels",
        data={"field": rawjson.dotted(path), "maxDepth": MAX_JSON_DEPTH},
    )


def _not_unicode_error(path: rawjson.Path) -> InvalidParamsError:
    field = rawjson.dotted(path)
    message = "Text must be valid Unicode: a lone UTF-16 surrogate (\\ud800-\\udfff) is not a character"
    return InvalidParamsError(
        f"Invalid params: {field}: {message}",
        data=[{"field": field, "message": message, "type": "string_unicode"}],
    )


class RequestError(Exception):
    def __init__(self, request_id: RequestId, error: A2AError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def invalid_params(error: ValidationError, params: Any = None) -> InvalidParamsError:
    """-32602 with one ``{field, message, type}`` per problem; ``params`` (the input) lets the
    field paths name only the input's own keys and indexes, not union tags."""
    details = [
        {
            "field": _field(e["loc"], params, missing=e["type"] == "missing"),
            "message": e["msg"],
            "type": e["type"],
        }
        for e in error.errors(include_url=False, include_input=False, include_context=False)
    ]
    first = details[0]
    return InvalidParamsError(
        f"Invalid params: {first['field'] or 'params'}: {first['message']}", data=details
    )


def _field(loc: tuple[int | str, ...], params: Any, *, missing: bool = False) -> str:
    """The dotted path of ``loc`` through ``params``.

    pydantic puts a union member's tag or class name into the location (``parts.0.text.text``,
    ``file.FileWithBytes.bytes``): the path keeps the steps that are keys and indexes of the input
    and leaves out the others, except the last of a ``missing`` error (the missing field). A tag
    that is also a key (``text``) could be either; the reading that leaves out least wins.
    """
    if params is None or len(loc) > 16:  # the search doubles per step; schema paths are short
        return rawjson.dotted(loc)
    return rawjson.dotted(_walk(params, loc, missing)[0])


def _walk(value: Any, loc: tuple[int | str, ...], missing: bool) -> tuple[tuple[int | str, ...], int]:
    """(path, cost) of the cheapest reading of ``loc`` over ``value``: a step left out costs 1,
    a last step left out 2 (it is what the error is about, so it goes only if nothing fits)."""
    if not loc:
        return (), 0
    step, rest = loc[0], loc[1:]
    in_object = isinstance(value, dict) and step in value
    in_array = isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value)
    if not rest:
        found = in_object or in_array or (missing and isinstance(value, dict))
        return ((step,), 0) if found else ((), 2)
    options = [_walk(value, rest, missing)]
    options[0] = (options[0][0], options[0][1] + 1)
    if in_object or in_array:
        path, cost = _walk(value[step], rest, missing)
        options.insert(0, ((step, *path), cost))
    return min(options, key=lambda option: option[1])


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
