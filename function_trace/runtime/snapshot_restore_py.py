"""A stand-in for the Lambda Python runtime's ``snapshot_restore_py`` (aws/snapshot-restore-py),
which SnapStart's managed runtimes (3.12+) provide: the same registration functions, and what the
runtime does with them, `run_before_snapshot` and `run_after_restore`, so the exercise and the
tests can run a function's SnapStart hooks in the order Lambda does (before the snapshot in the
reverse order of registration, after a restore in the order of registration)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_before: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []
_after: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []


def register_before_snapshot(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    _before.append((func, args, kwargs))
    return func


def register_after_restore(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    _after.append((func, args, kwargs))
    return func


def get_before_snapshot() -> list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]]:
    return _before


def get_after_restore() -> list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]]:
    return _after


def run_before_snapshot() -> None:
    for func, args, kwargs in reversed(_before):
        func(*args, **kwargs)


def run_after_restore() -> None:
    for func, args, kwargs in _after:
        func(*args, **kwargs)
