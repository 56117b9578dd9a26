"""The 1.0 HTTP+JSON binding's routes, as data, and the function that turns a request into params.

Routes are the proto's ``google.api.http`` bindings, as each operation's row names them
(`operations.OPERATIONS`), each also under ``/{tenant}/``; ``POST`` with an empty body is read
wherever a body is optional.

`resolve` maps (method, path, query, body) to the operation and its params in the JSON-RPC
``params`` shape, so both bindings decode through `operations.Operation.decode`:

- path parameters (percent-decoded) bind ``id``/``taskId``/``tenant``; a body that names the same
  field differently is refused;
- POST binds the JSON body (``body: "*"``); GET and DELETE bind query parameters (spec 11.5:
  camelCase names, snake_case accepted too, booleans ``true``/``false``, numbers and enum names as
  strings, which the request models read as ProtoJSON does); other query parameters (such as
  ``A2A-Version``) are ignored, a bound one given twice is refused;
- an unknown path is a MethodNotFoundError (404), a known path with another HTTP method a
  MethodNotAllowedError (405) whose ``allow`` lists the methods to send in ``Allow``.

Paths are matched as google.api.http does: a final ``:verb`` is split off first, and if nothing
matches with it the whole segment is tried as a value (so ``GET /tasks/urn:x`` reads task
``urn:x``). Pass the path still percent-encoded (ASGI ``raw_path``) so an id holding ``/`` works.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from pydantic.alias_generators import to_camel, to_snake

from a2a_core import rawjson
from a2a_core.core.errors import InvalidParamsError, InvalidRequestError, JSONParseError, MethodNotFoundError
from a2a_core.protocol.jsonrpc import MAX_JSON_DEPTH
from a2a_core.protocol.v1.errors import MethodNotAllowedError
from a2a_core.protocol.v1.operations import BOOL, OPERATIONS, Operation
from a2a_core.protocol.validation import not_unicode_error, out_of_range_error, too_deep_error


@dataclass(frozen=True)
class Route:
    method: str
    template: str  # e.g. "/{tenant}/tasks/{id}:cancel"
    operation: str
    binds_body: bool
    query: Mapping[str, str] = field(default_factory=dict)  # bound query parameter -> BOOL/SCALAR

    # Read for every route on every request: computed once.
    @functools.cached_property
    def segments(self) -> tuple[str, ...]:
        return _shape(self.template)[0]

    @functools.cached_property
    def verb(self) -> str | None:
        return _shape(self.template)[1]


def _shape(template: str) -> tuple[tuple[str, ...], str | None]:
    """``/tasks/{id}:cancel`` -> (("tasks", "{id}"), "cancel")."""
    *segments, last = template.strip("/").split("/")
    head, colon, verb = last.partition(":")
    return (*segments, head), (verb if colon else None)


@dataclass(frozen=True)
class RestCall:
    operation: str
    params: dict[str, Any]


def routes(operations: Mapping[str, Operation] = OPERATIONS) -> tuple[Route, ...]:
    """Every operation's ``google.api.http`` routes (`operations.Http`), each also under
    ``/{tenant}``; un-prefixed routes first: ``/tasks/tasks`` is task "tasks", not tenant
    "tasks" listing its tasks."""
    return tuple(
        Route(http.method, prefix + http.path, operation.name, http.body, http.query)
        for prefix in ("", "/{tenant}")
        for operation in operations.values()
        for http in operation.http
    )


ROUTES = routes()


def resolve(
    method: str, path: str, query: Iterable[tuple[str, str]], body: object, table: tuple[Route, ...] = ROUTES
) -> RestCall:
    """The operation a request calls and its params; raises the errors the module doc lists.

    ``body`` is the parsed JSON body (`parse_body`), None when the request had none.
    """
    route, path_params = match(method, path, table)
    params = _body_params(route, body) if route.binds_body else _query_params(route, query)
    for name, value in path_params.items():
        given = params.get(name, params.get(to_snake(name)))
        if given is not None and given != value:
            message = f"{name} is {value!r} in the path but {given!r} in the body"
            raise InvalidParamsError(message, data=[{"field": name, "message": message}])
        params.pop(to_snake(name), None)
        params[name] = value
    return RestCall(route.operation, params)


def match(method: str, path: str, table: tuple[Route, ...] = ROUTES) -> tuple[Route, dict[str, str]]:
    """The route for (method, path) and its decoded path parameters."""
    for segments, verb in _readings(path):
        found = [(route, bound) for route in table if (bound := _bind(route, segments, verb)) is not None]
        if not found:
            continue
        for route, bound in found:
            if route.method == method.upper():
                return route, bound
        allowed = sorted({route.method for route, _ in found})
        raise MethodNotAllowedError(
            f"{method.upper()} is not allowed on {path}; use {', '.join(allowed)}",
            data={"allow": ", ".join(allowed)},
        )
    raise MethodNotFoundError(f"No A2A operation at {path}")


def parse_body(raw: bytes) -> dict[str, Any] | None:
    """A request body as a JSON object (None when empty), read as a JSON-RPC body is (`rawjson`).

    Raises JSONParseError for a body that is not JSON (``NaN`` and ``Infinity`` are not),
    InvalidRequestError for one that is not an object or nests deeper than JSON-RPC allows,
    InvalidParamsError naming a string that holds a lone surrogate (it could be neither hashed nor
    stored) or a number out of range (``1e400``: it could not be kept as sent).
    """
    if not raw.strip():
        return None
    try:
        value = rawjson.parse(raw, max_depth=MAX_JSON_DEPTH)
    except rawjson.TooDeepError as error:
        raise too_deep_error(error.path, MAX_JSON_DEPTH) from None
    except rawjson.NumberOutOfRangeError as error:
        raise out_of_range_error(error.path) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise JSONParseError(f"Invalid JSON payload: {error}") from None
    if not isinstance(value, dict):
        raise InvalidRequestError("The request body must be a JSON object")
    if rawjson.may_hold_surrogates(raw) and (path := rawjson.lone_surrogate_path(value)) is not None:
        raise not_unicode_error(path)
    return value


def _readings(path: str) -> list[tuple[list[str], str | None]]:
    # Exact segments: no empty ones, so `/tasks/` and `/tasks//x` are not `/tasks` and
    # `/tasks/x`; only a run of leading slashes is one (`//message:send`, from a client that
    # joined a base URL ending in `/` with a path starting with one): no route starts empty.
    segments = path.lstrip("/").split("/")
    head, colon, verb = segments[-1].rpartition(":")
    readings: list[tuple[list[str], str | None]] = []
    if colon and head:
        readings.append(([*segments[:-1], head], verb))
    readings.append((segments, None))
    return readings


def _bind(route: Route, segments: list[str], verb: str | None) -> dict[str, str] | None:
    template = route.segments
    if route.verb != verb or len(template) != len(segments):
        return None
    bound: dict[str, str] = {}
    for pattern, segment in zip(template, segments, strict=True):
        if pattern.startswith("{"):
            value = unquote(segment)
            if not value:
                return None
            bound[pattern.strip("{}")] = value
        elif pattern != segment:
            return None
    return bound


def _body_params(route: Route, body: object) -> dict[str, Any]:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise InvalidRequestError(f"The body of {route.operation} must be a JSON object")
    return dict(body)


def _query_params(route: Route, query: Iterable[tuple[str, str]]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for raw_name, value in query:
        name = to_camel(raw_name) if "_" in raw_name else raw_name
        kind = route.query.get(name)
        if kind is None:
            continue  # not a field of this request (A2A-Version, a cache buster...)
        if name in params:
            message = f"query parameter {name} is given more than once"
            raise InvalidParamsError(message, data=[{"field": name, "message": message}])
        params[name] = _query_value(name, value) if kind == BOOL else value
    return params


def _query_value(name: str, value: str) -> bool:
    if value in ("true", "false"):
        return value == "true"
    message = f"query parameter {name} must be true or false, got {value!r}"
    raise InvalidParamsError(message, data=[{"field": name, "message": message}])
