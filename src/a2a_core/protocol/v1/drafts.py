"""A2A 1.1 (the ``dev-1.1`` draft): served by the 1.0 codec plus the draft's fields.

A request that names ``A2A-Version: 1.1`` runs the 1.0 operations; while its params are decoded
and its results (each stream event included) are encoded, `speaks_1_1` is true, and only then do
the codecs read or write what the draft adds: ``generation`` on tasks and update events,
``currentGeneration`` on GetTask, ``configuration.ifGenerationMatch`` on sends. So 1.0 answers stay
exactly what they were, whatever the domain objects carry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

_SPEAKS_1_1: ContextVar[bool] = ContextVar("a2a_speaks_1_1", default=False)


def speaks_1_1() -> bool:
    """Whether the params or result being converted are a 1.1 request's."""
    return _SPEAKS_1_1.get()


@contextmanager
def in_1_1() -> Iterator[None]:
    """Convert as 1.1 within the block."""
    token = _SPEAKS_1_1.set(True)
    try:
        yield
    finally:
        _SPEAKS_1_1.reset(token)


def as_1_1(convert: Callable[_P, _R]) -> Callable[_P, _R]:
    """``convert`` (a decoder or an encoder, never a coroutine) run as 1.1."""

    @functools.wraps(convert)
    def converted(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with in_1_1():
            return convert(*args, **kwargs)

    return converted


def generation_out(generation: int | None) -> int | None:
    """The generation to write: only for 1.1, and only when known (0 is the draft's "unknown")."""
    return generation or None if speaks_1_1() else None
