"""Refusing params: pydantic's validation errors as -32602 naming the client's own fields, and
what `rawjson` finds before any model sees a body (text that is not Unicode, nesting too deep),
for every binding that reads a JSON body."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from a2a_core import rawjson
from a2a_core.core.errors import InvalidParamsError, InvalidRequestError


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


def not_unicode_error(path: rawjson.Path) -> InvalidParamsError:
    field = rawjson.dotted(path)
    message = "Text must be valid Unicode: a lone UTF-16 surrogate (\\ud800-\\udfff) is not a character"
    return InvalidParamsError(
        f"Invalid params: {field}: {message}",
        data=[{"field": field, "message": message, "type": "string_unicode"}],
    )


def out_of_range_error(path: rawjson.Path) -> InvalidParamsError:
    field = rawjson.dotted(path)
    message = (
        "Number out of range: a float beyond double precision's range (such as 1e400) or an "
        "integer of more than 4300 digits cannot be kept as sent"
    )
    return InvalidParamsError(
        f"Invalid params: {field}: {message}",
        data=[{"field": field, "message": message, "type": "number_out_of_range"}],
    )


def too_deep_error(path: rawjson.Path, limit: int) -> InvalidRequestError:
    return InvalidRequestError(
        f"Request nests objects and arrays deeper than {limit} levels",
        data={"field": rawjson.dotted(path), "maxDepth": limit},
    )
