"""`InMemoryTaskStore`'s listing index: the owners' tasks in the order `TaskStore.list_owned`
promises, kept up to date on each append (under the store's lock)."""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from dataclasses import dataclass

from a2a_core.core.tasklog.list_keys import (
    IndexedTask,
    IndexQuery,
    InvalidPositionError,
    OwnedTasks,
    carries_entry,
    listed_class,
    sort_value,
)
from a2a_core.core.tasklog.records import ANONYMOUS_OWNER, Commit

_Key = tuple[float, str]  # (order value, task_id): entries sort ascending, list descending
_Keep = Callable[[_Key], bool]


@dataclass(frozen=True)
class _Entry:
    key: _Key
    listed: str
    seq: int


class MemoryListIndex:
    def __init__(self) -> None:
        # Per owner, oldest first: (created_at, task_id) and the context of each task...
        self._created: dict[str, list[_Key]] = {}
        self._contexts: dict[str, str] = {}
        # ...and the current entry of each task, by `list_keys.sort_value`.
        self._listed: dict[str, list[_Key]] = {}
        self._entries: dict[str, _Entry] = {}

    def add(self, commit: Commit) -> None:
        """Index a stored ``commit`` (the caller holds the store's lock)."""
        owner = commit.owner or ANONYMOUS_OWNER
        if commit.first_seq == 1:
            bisect.insort(self._created.setdefault(owner, []), (commit.created_at, commit.task_id))
            self._contexts[commit.task_id] = commit.context_id
        if not carries_entry(commit):
            return
        listed = self._listed.setdefault(owner, [])
        old = self._entries.get(commit.task_id)
        if old is not None:
            listed.pop(bisect.bisect_left(listed, old.key))
        key = (sort_value(commit), commit.task_id)
        self._entries[commit.task_id] = _Entry(key, listed_class(commit.state), commit.first_seq)
        bisect.insort(listed, key)

    def list(self, owner: str, query: IndexQuery, after: str | None, limit: int) -> OwnedTasks:
        if query.context_id is not None:
            keys, keep = self._created.get(owner, []), self._in_context(query.context_id)
        else:
            keys, keep = self._listed.get(owner, []), self._matching(query)
        # Newest first: walk the (ascending) keys backwards from below ``after``.
        index = len(keys) if after is None else bisect.bisect_left(keys, _key(after))
        found: list[IndexedTask] = []
        while index > 0 and len(found) <= limit:
            index -= 1
            key = keys[index]
            if keep(key):
                seq = None if query.context_id is not None else self._entries[key[1]].seq
                found.append(IndexedTask(key[1], seq, _position(key)))
        if len(found) <= limit:
            return OwnedTasks(tuple(found), None)
        page = tuple(found[:limit])
        return OwnedTasks(page, page[-1].position)

    def _in_context(self, context_id: str) -> _Keep:
        return lambda key: self._contexts[key[1]] == context_id

    def _matching(self, query: IndexQuery) -> _Keep:
        def keep(key: _Key) -> bool:
            entry = self._entries[key[1]]
            if query.listed is not None and entry.listed != query.listed:
                return False
            return query.since is None or key[0] >= query.since

        return keep


def _position(key: _Key) -> str:
    return json.dumps(list(key), separators=(",", ":"))


def _key(position: str) -> _Key:
    """The key a position stands for."""
    try:
        parsed = json.loads(position)
    except ValueError:
        parsed = None
    match parsed:
        case [int() | float() as value, str(task_id)] if not isinstance(value, bool):
            return float(value), task_id
        case _:
            raise InvalidPositionError(f"not a task list position: {position!r}")
