"""JSON-RPC 2.0 over one POST endpoint, for every protocol generation.

Each generation (`a2a_core.protocol.v0`, `a2a_core.protocol.v1`) is a `Binding`: its method
table (name -> decode params, handler, encode result) and how it writes errors and stream events.
This module owns what they share: parsing the envelope, echoing the request ``id`` whenever it
could be read (``null`` otherwise), running the handler, and the one place where unexpected
exceptions become -32603 with no detail (the traceback goes to the log only).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

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
    PushNotificationNotSupportedError,
    UnsupportedOperationError,
    VersionNotSupportedError,
)
from a2a_core.core.streams import StreamItem
from a2a_core.protocol.validation import invalid_params, not_unicode_error, out_of_range_error, too_deep_error
from a2a_core.protocol.versions import Version

logger = logging.getLogger(__name__)

RequestId = str | int | None
# Deeper requests are refused (see `rawjson`): no A2A request needs it.
MAX_JSON_DEPTH = 64
# The longest request id (a string's characters, an integer's digits) echoed: clients send UUIDs
# and counters, and an id is written back into every response and stream event.
MAX_ID_LENGTH = 256


@dataclass(frozen=True)
class Method:
    """One JSON-RPC method: params (a JSON object) -> request, the handler, result -> JSON."""

    decode: Callable[[dict[str, Any]], Any]
    handler: Callable[[Any, Caller], Awaitable[Any]]
    encode: Callable[[Any], bytes] = field(default=lambda result: b"null")
    streaming: bool = False
    # 0.x methods take a params object; 1.0 reads absent params as {} (GetExtendedAgentCard).
    params_required: bool = False
    # A stream item's result as JSON; None: the binding's `Binding.encode_event`.
    encode_event: Callable[[BaseModel], bytes] | None = None
    # The params' choice of another reading of this method (a client's dialect of the
    # generation, read and answered its way), or None for this one.
    dialect: Callable[[dict[str, Any]], Method | None] | None = None


Handler = Callable[[Any, Caller], Awaitable[Any]]


def streaming_disabled(instead: str) -> Handler:
    """The handler of a streaming method on a server without streaming; ``instead`` names the
    generation's methods to use."""

    async def refuse(request: Any, caller: Caller) -> NoReturn:
        raise UnsupportedOperationError(
            f"Streaming is not enabled on this server (capabilities.streaming is false); use {instead}"
        )

    return refuse


async def push_disabled(request: Any, caller: Caller) -> NoReturn:
    """The handler of every push config method on a server without push notifications."""
    raise PushNotificationNotSupportedError(
        "This agent does not send push notifications (capabilities.pushNotifications is false)"
    )


@dataclass(frozen=True)
class Binding:
    """A protocol generation's JSON-RPC surface."""

    version: Version
    methods: Mapping[str, Method]
    error_body: Callable[[RequestId, A2AError], bytes]
    # A stream item's result (a Task or an update event of the domain model) as the JSON-RPC result.
    encode_event: Callable[[BaseModel], bytes]
    # For another generation's method name: how to reach it (the A2A-Version to send), said in
    # its method-not-found error; else None.
    foreign: Callable[[str], str | None] = field(default=lambda name: None)


@dataclass(frozen=True)
class StreamReply:
    """A streamed answer: each item becomes one JSON-RPC response carrying the request id."""

    request_id: RequestId
    items: AsyncIterator[StreamItem]
    binding: Binding
    # The method's own event encoding (`Method.encode_event`); None: the binding's.
    encode_event: Callable[[BaseModel], bytes] | None = None

    def encode(self, item: StreamItem) -> bytes:
        if item.error is not None:
            return self.binding.error_body(self.request_id, item.error)
        assert item.result is not None
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(self.request_id).encode() + b',"result":'
        return head + (self.encode_event or self.binding.encode_event)(item.result) + b"}"

    def event(self, item: StreamItem) -> str | None:
        # 1.0 names error events (as a2a-sdk 1.3 does); 0.x streams never named events.
        return "error" if item.error is not None and self.binding.version.is_v1 else None


@dataclass(frozen=True)
class Call:
    """A request that passed every check up to its params."""

    id: RequestId
    method: str
    request: Any
    # What runs and answers it: the binding's entry for ``method``, or the dialect it chose.
    target: Method


class Dispatcher:
    def __init__(self, bindings: Mapping[Version, Callable[[], Binding]]) -> None:
        """``bindings``: each generation's binding, built on its first request."""
        self._factories = dict(bindings)
        self._bindings: dict[Version, Binding] = {}

    def binding(self, version: Version) -> Binding:
        binding = self._bindings.get(version)
        if binding is None:
            binding = self._bindings[version] = self._factories[version]()
        return binding

    async def dispatch(
        self, body: bytes, caller: Caller, version: Version | VersionNotSupportedError
    ) -> bytes | StreamReply:
        """The JSON response body for a request body, or a stream for a streaming method.

        ``version`` is what the request's ``A2A-Version`` asked for, or the error saying it is not
        served (answered once the id is read). Errors found before a stream starts (bad params,
        an unknown task to continue) are plain JSON bodies, as every generation requires.
        """
        binding = self._answering(version)
        try:
            envelope = parse_envelope(body)
        except RequestError as error:
            return binding.error_body(error.request_id, error.error)
        if isinstance(version, VersionNotSupportedError):
            return binding.error_body(envelope.id, version)
        try:
            call = self._call(binding, envelope)
        except RequestError as error:
            return binding.error_body(error.request_id, error.error)
        return await self._run(binding, call, caller)

    def refusal(self, version: Version | VersionNotSupportedError, error: A2AError) -> bytes:
        """The response to a request refused before its body was read (so its id is null), in the
        shape of the generation it asked for."""
        return self._answering(version).error_body(None, error)

    def _answering(self, version: Version | VersionNotSupportedError) -> Binding:
        # A version that is not served is answered by the newest generation's error shape.
        return self.binding(version if isinstance(version, Version) else Version.V1_0)

    def _call(self, binding: Binding, envelope: Envelope) -> Call:
        method = binding.methods.get(envelope.method)
        if method is None:
            # The requested version is served; it has no such method (-32601), even when the
            # other generation has one: the message says how to reach that.
            hint = binding.foreign(envelope.method) or f"Method {envelope.method!r} not found"
            raise RequestError(envelope.id, MethodNotFoundError(hint))
        params = envelope.params
        if params is None:
            if method.params_required:
                error = InvalidParamsError(f'Field "params" is required for {envelope.method}')
                raise RequestError(envelope.id, error)
            params = {}
        if method.dialect is not None:
            method = method.dialect(params) or method
        try:
            return Call(envelope.id, envelope.method, method.decode(params), method)
        except ValidationError as error:
            raise RequestError(envelope.id, invalid_params(error, params)) from None
        except A2AError as error:
            raise RequestError(envelope.id, error) from None

    async def _run(self, binding: Binding, call: Call, caller: Caller) -> bytes | StreamReply:
        method = call.target
        try:
            result = await method.handler(call.request, caller)
        except A2AError as error:
            return binding.error_body(call.id, error)
        except Exception:
            logger.exception("internal error in %s", call.method)
            return binding.error_body(call.id, InternalError())
        if method.streaming:
            return StreamReply(call.id, guarded(result, call.method), binding, method.encode_event)
        try:
            encoded = method.encode(result)
        except Exception:
            logger.exception("internal error encoding the result of %s", call.method)
            return binding.error_body(call.id, InternalError())
        return b'{"jsonrpc":"2.0","id":' + json.dumps(call.id).encode() + b',"result":' + encoded + b"}"


@dataclass(frozen=True)
class Envelope:
    id: RequestId
    method: str
    params: dict[str, Any] | None  # None: the request has none


def parse_envelope(body: bytes) -> Envelope:
    """Validate a request body up to its params; raises `RequestError` carrying the id it read."""
    try:
        payload = rawjson.parse(body, max_depth=MAX_JSON_DEPTH, wanted=("id",))
    except rawjson.TooDeepError as error:
        too_deep = too_deep_error(error.path, MAX_JSON_DEPTH)
        raise RequestError(_readable_id(error.top_level), too_deep) from None
    except rawjson.NumberOutOfRangeError as error:
        raise _out_of_range(error) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise RequestError(None, JSONParseError(f"Invalid JSON payload: {error}")) from None
    if not isinstance(payload, dict):
        kind = "Batch requests are not supported" if isinstance(payload, list) else "not an object"
        raise RequestError(None, InvalidRequestError(f"Request must be a JSON-RPC object ({kind})"))
    request_id = _readable_id(payload)
    if request_id is None and payload.get("id") is not None:
        raise RequestError(None, _bad_id())
    if payload.get("jsonrpc") != "2.0":
        raise RequestError(request_id, InvalidRequestError('Field "jsonrpc" must be exactly "2.0"'))
    name = payload.get("method")
    if not isinstance(name, str):
        raise RequestError(request_id, InvalidRequestError('Field "method" must be a string'))
    params = payload.get("params")
    if params is not None and not isinstance(params, dict):
        raise RequestError(request_id, InvalidParamsError(f'Field "params" must be an object for {name}'))
    if rawjson.may_hold_surrogates(body) and (path := rawjson.lone_surrogate_path(params)) is not None:
        raise RequestError(request_id, not_unicode_error(path))
    return Envelope(request_id, name, params)


async def guarded(items: AsyncIterator[StreamItem], method: str) -> AsyncIterator[StreamItem]:
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
    if len(request_id if isinstance(request_id, str) else str(abs(request_id))) > MAX_ID_LENGTH:
        return None
    return request_id


def _bad_id() -> InvalidRequestError:
    return InvalidRequestError(
        f"Request id must be a string (of Unicode text) of at most {MAX_ID_LENGTH} characters, "
        f"an integer of at most {MAX_ID_LENGTH} digits, or null"
    )


def _out_of_range(error: rawjson.NumberOutOfRangeError) -> RequestError:
    """The refusal of a number out of range: in ``params``, naming its field; as the id, a bad id."""
    head, *rest = error.path or ("",)
    if head == "id" and not rest:
        return RequestError(None, _bad_id())
    request_id = _readable_id(error.top_level)
    if head == "params":
        return RequestError(request_id, out_of_range_error(tuple(rest)))
    return RequestError(
        request_id, InvalidRequestError(f"Field {rawjson.dotted(error.path)!r}: number out of range")
    )


class RequestError(Exception):
    def __init__(self, request_id: RequestId, error: A2AError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def error_body(request_id: RequestId, error: A2AError) -> bytes:
    """A 0.x error response: ``{code, message, data}`` with the error's own ``data``."""
    payload: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        payload["data"] = error.data
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": payload}).encode()
