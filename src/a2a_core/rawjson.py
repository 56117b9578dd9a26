"""A request body read as JSON, with what no protocol request needs refused and located.

Protocol-neutral: every binding that takes a JSON body (JSON-RPC today, any other later) reads
it here and gets, for a refusal, the path of the offending value to name in its error.

- Nesting deeper than a limit: no request needs it, and deeper values break the parser
  (`RecursionError` past ~1,000 levels) or serialization when a task is stored (pydantic stops
  at 255). A body too deep for the parser is still scanned for its top-level scalars, so a
  JSON-RPC ``id`` sent before or after the deep part can be echoed.
- Lone UTF-16 surrogates (``"\\ud800"``, or U+D800 encoded as if it were a character, which
  `json.loads` decodes with ``surrogatepass``): a str that holds one cannot be encoded as UTF-8,
  so it would fail later, in whatever first tries to hash or store it.
- What is not JSON although Python's parser takes it: ``NaN``, ``Infinity`` and ``-Infinity``
  are refused as the parse errors they are (stored, they would come back as ``null``).
- Numbers that cannot be kept as written: a float beyond double range (``1e400``, which would
  be stored as ``null``) and an integer of more digits than Python converts (its limit, 4,300 by
  default, would otherwise surface as an error naming ``sys.set_int_max_str_digits``). They are
  refused with their path (`NumberOutOfRangeError`), for the binding to name the field.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Collection
from typing import Any

Path = tuple[str | int, ...]

# A body can hold a surrogate only as a \uD800-\uDFFF escape or as non-ASCII bytes.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Strings (with their escapes) and the structural characters; scalars outside strings are skipped.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]')
_SPACE = re.compile(r"\s*")
# Past the depth limit: strings, and the runs of everything else between them.
_RUN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^"]+')
_CHUNK = 4096


class TooDeepError(ValueError):
    """The body nests objects and arrays deeper than allowed.

    ``path`` leads to the first container past the limit; ``top_level`` holds the scalar members
    of the top-level object that could be read (empty when the body is not an object).
    """

    def __init__(self, path: Path, top_level: dict[str, Any]) -> None:
        super().__init__("too deep")
        self.path = path
        self.top_level = top_level


class NumberOutOfRangeError(ValueError):
    """The body holds a number that cannot be kept as written (see the module doc).

    ``path`` leads to the first one; ``top_level`` holds the scalar members of the top-level
    object that could be read (that number left out)."""

    def __init__(self, path: Path, top_level: dict[str, Any]) -> None:
        super().__init__("number out of range")
        self.path = path
        self.top_level = top_level


# Stands where a number out of range was, until its path is found.
_OUT_OF_RANGE = object()


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value (JSON has no NaN or Infinity)")


class _Numbers:
    """Python's parser held to JSON's grammar: its hooks run only for constants, floats and
    integers, and note whether a number was out of range (one parse's worth of state)."""

    def __init__(self) -> None:
        self.out_of_range = False
        self.decoder = json.JSONDecoder(
            parse_constant=_not_json, parse_float=self._float, parse_int=self._int
        )

    def _float(self, text: str) -> Any:
        value = float(text)
        if math.isinf(value):
            self.out_of_range = True
            return _OUT_OF_RANGE
        return value

    def _int(self, text: str) -> Any:
        try:
            return int(text)
        except ValueError:  # more digits than sys.get_int_max_str_digits() allows
            self.out_of_range = True
            return _OUT_OF_RANGE


def parse(body: bytes, *, max_depth: int, wanted: Collection[str] = ()) -> Any:
    """The JSON value of ``body``; raises `TooDeepError`, `NumberOutOfRangeError`, or
    ValueError/UnicodeDecodeError for a body that is not JSON. ``wanted`` names the top-level
    members a refusal should carry (a JSON-RPC id): a body too deep to parse is scanned until
    they are found."""
    text = body.decode(json.detect_encoding(body), "surrogatepass")
    numbers = _Numbers()
    try:
        value = numbers.decoder.decode(text)
    except RecursionError:
        raise TooDeepError(*_scan_too_deep(text, max_depth, wanted)) from None
    path = too_deep_path(value, max_depth)
    if path is not None:
        raise TooDeepError(path, _scalars(value))
    if numbers.out_of_range:
        raise NumberOutOfRangeError(_out_of_range_path(value) or (), _scalars(value))
    return value


def _scalars(value: Any) -> dict[str, Any]:
    top = value if isinstance(value, dict) else {}
    return {k: v for k, v in top.items() if not isinstance(v, dict | list) and v is not _OUT_OF_RANGE}


def _out_of_range_path(value: Any) -> Path | None:
    pending: list[tuple[Any, Path]] = [(value, ())]
    while pending:
        item, path = pending.pop()
        if item is _OUT_OF_RANGE:
            return path
        if isinstance(item, dict):
            pending.extend((child, (*path, key)) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            pending.extend((child, (*path, i)) for i, child in reversed(list(enumerate(item))))
    return None


def may_hold_surrogates(body: bytes) -> bool:
    """False when ``body`` cannot decode to a lone surrogate: the cheap check before a walk."""
    return not body.isascii() or _SURROGATE_ESCAPE.search(body) is not None


def lone_surrogate_path(value: Any) -> Path | None:
    """The path of the first string (or object key) in ``value`` holding a lone surrogate."""
    pending: list[tuple[Any, Path]] = [(value, ())]
    while pending:
        item, path = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return path
        elif isinstance(item, dict):
            for key in reversed(item):
                if not key.isascii() and _SURROGATE.search(key):
                    return (*path, key)
                pending.append((item[key], (*path, key)))
        elif isinstance(item, list):
            pending.extend((child, (*path, i)) for i, child in reversed(list(enumerate(item))))
    return None


def too_deep_path(value: Any, limit: int) -> Path | None:
    """The path of the first container nested more than ``limit`` levels deep, if any."""
    pending: list[tuple[Any, Path]] = [(value, ())]
    while pending:
        item, path = pending.pop()
        if isinstance(item, dict | list):
            children = item.items() if isinstance(item, dict) else enumerate(item)
        else:
            continue
        nested = [(key, child) for key, child in children if isinstance(child, dict | list)]
        for key, child in reversed(nested):
            if len(path) + 1 >= limit:
                return (*path, key)
            pending.append((child, (*path, key)))
    return None


def dotted(path: Path) -> str:
    """A path as the dotted field name errors carry; surrogates in keys shown as escapes."""
    return ".".join(
        part.encode("utf-8", "backslashreplace").decode() if isinstance(part, str) else str(part)
        for part in path
    )


def _scan_too_deep(text: str, limit: int, wanted: Collection[str]) -> tuple[Path, dict[str, Any]]:
    """Where the nesting first passes ``limit``, and the top-level object's scalar members, from
    a body the parser could not take. Keys and indexes are tracked token by token only until the
    limit is passed; after that only the depth is, over runs of brackets, and the scan stops
    once every ``wanted`` member was read."""
    frames: list[list[Any]] = []  # per open container: [is_object, current key or index]
    top: dict[str, Any] = {}
    expect_key = False
    for token in _TOKEN.finditer(text):
        char = token.group()
        if char in "{[":
            if len(frames) >= limit:
                path: Path = tuple(frame[1] for frame in frames)
                if not all(key in top for key in wanted):
                    _read_top_level(text, token.start(), len(frames), top, wanted)
                return path, top
            frames.append([char == "{", None if char == "{" else 0])
            expect_key = char == "{"
        elif char in "}]":
            if frames:
                frames.pop()
            expect_key = False
        elif char == ",":
            if frames and frames[-1][0]:
                expect_key = True
            elif frames:
                frames[-1][1] += 1
        elif char == ":":
            if len(frames) == 1 and frames[0][0] and isinstance(frames[0][1], str):
                _read_scalar(text, token.end(), frames[0][1], top)
        elif expect_key and frames:
            frames[-1][1] = _string(char)
            expect_key = False
    return tuple(frame[1] for frame in frames), top  # the parser's limit, not ours: report where


def _read_top_level(text: str, start: int, depth: int, top: dict[str, Any], wanted: Collection[str]) -> None:
    """Read the top-level object's scalar members after ``start`` (at ``depth``).

    Between strings, a run that cannot bring the depth back to the top level is skipped by
    counting its brackets, so a deep body costs a few C-speed counts per string, not a step per
    character.
    """
    expect_key = False
    key: str | None = None
    for token in _RUN.finditer(text, start):
        run = token.group()
        if run[0] == '"':
            if depth == 1 and expect_key:
                key, expect_key = _string(run), False
            continue
        for chunk_start in range(0, len(run), _CHUNK):
            chunk = run[chunk_start : chunk_start + _CHUNK]
            closes = chunk.count("]") + chunk.count("}")
            if depth - closes > 1:
                depth += chunk.count("[") + chunk.count("{") - closes
                continue
            for offset, char in enumerate(chunk, token.start() + chunk_start):
                if char in "{[":
                    depth += 1
                elif char in "}]":
                    depth -= 1
                elif depth == 1 and char == ",":
                    expect_key = True
                elif depth == 1 and char == ":" and key is not None:
                    _read_scalar(text, offset + 1, key, top)
                    if all(name in top for name in wanted):
                        return
                    key = None


def _read_scalar(text: str, start: int, key: str, into: dict[str, Any]) -> None:
    space = _SPACE.match(text, start)
    position = space.end() if space else start
    if position < len(text) and text[position] not in "{[":
        with contextlib.suppress(ValueError):
            into[key] = json.JSONDecoder().raw_decode(text, position)[0]


def _string(token: str) -> str:
    try:
        decoded: str = json.loads(token)
    except ValueError:
        return token.strip('"')
    return decoded
