"""The session store port and its in-memory adapter: a framework's conversation memory.

A framework keeps a conversation as a *session*: a few small records (the session itself, an
agent's state, scoped state) and a log of entries that only grows (ADK's events, Strands'
messages). This store keeps both per session key (`SessionScope.key` makes one, scoped to the
task's owner), so a conversation outlives the worker that ran its last turn:

- an entry is one item, written once at its sequence number: appending costs what is appended,
  never a rewrite of the conversation, and reading takes a bounded window (``limit``);
- a record is one JSON value with a version, written on the version it was decided on, as the
  context store's values are (`a2a_core.core.turn.context_store`).

Every write carries a ``write_id``: a write sent again (its answer was lost) is recognised as
landed, even after another writer moved on, so nothing is stored twice; two writers of one
session lose no write (a record's second writer gets `RecordConflictError`, an entry's the
next free sequence number). Values are JSON, stored serialised: reads return fresh copies.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import JsonValue

from a2a_core.core.turn.context_store import RECENT_WRITES, dump_value, load_value, new_write_id

# ``expected_version=NO_RECORD`` creates a record that must not exist yet.
NO_RECORD = 0


class RecordConflictError(Exception):
    """The record changed since the version the write was decided on; load it and decide again."""


class EntryTakenError(Exception):
    """Another write holds this sequence number of the session's log (nothing was stored)."""


@dataclass(frozen=True)
class Record:
    """A session's named value and its version."""

    name: str
    value: JsonValue
    version: int


@dataclass(frozen=True)
class Entry:
    """One entry of a session's log, at its sequence number (1, 2, ...)."""

    seq: int
    value: JsonValue


RecordUpdate = Callable[[JsonValue | None], JsonValue]


class SessionStore(ABC):
    """Records and an append-only log per session key; every write exactly once."""

    max_attempts: int = 50

    @abstractmethod
    async def load_record(self, session: str, name: str) -> Record | None:
        """The record ``name`` of ``session``, or None if none was stored. Strongly consistent."""

    @abstractmethod
    async def save_record(
        self, session: str, name: str, value: JsonValue, *, expected_version: int, write_id: str | None = None
    ) -> int:
        """Replace the record if its version is still ``expected_version`` (`NO_RECORD`: it must
        not exist); returns the new version (one more than before).

        Raises `RecordConflictError` when another write got there first (nothing is stored),
        ``TypeError``/``ValueError`` when ``value`` is not JSON. The same write sent again (same
        ``write_id``) while among the record's last `RECENT_WRITES` stores nothing and returns
        the version it landed at.
        """

    @abstractmethod
    async def list_records(self, session: str, prefix: str, *, limit: int = 1000) -> list[Record]:
        """The first ``limit`` records of ``session`` whose name starts with ``prefix``, by name."""

    @abstractmethod
    async def put_entry(
        self, session: str, seq: int, value: JsonValue, *, write_id: str | None = None
    ) -> None:
        """Store ``value`` at ``seq`` (from 1) of the session's log, if no other write holds it.

        Raises `EntryTakenError` when another write holds ``seq`` (nothing is stored); the same
        write sent again (same ``write_id``) returns as stored. ``ValueError`` for a ``seq``
        below 1 or a value that is not JSON.
        """

    @abstractmethod
    async def replace_entry(self, session: str, seq: int, value: JsonValue) -> None:
        """Overwrite the entry at ``seq`` (a framework redacting a message); ``LookupError`` if
        there is none. The only change an entry ever sees."""

    @abstractmethod
    async def read_entries(
        self, session: str, *, after: int = 0, limit: int | None = None, newest: bool = False
    ) -> list[Entry]:
        """Entries after ``after``, in order: the first ``limit`` of them, or with ``newest`` the
        last ``limit``. Strongly consistent; an unknown session has none."""

    async def last_seq(self, session: str) -> int:
        """The sequence number of the session's newest entry; 0 when it has none."""
        newest = await self.read_entries(session, limit=1, newest=True)
        return newest[0].seq if newest else 0

    async def append(self, session: str, value: JsonValue, *, write_id: str | None = None) -> int:
        """Store ``value`` after the session's newest entry; returns its sequence number.

        Another writer's entry at the same number moves this one to the next: no write is lost,
        and a resent one is stored once. Raises `EntryTakenError` after `max_attempts` races.
        """
        write_id = write_id or new_write_id()
        seq = await self.last_seq(session) + 1
        for _ in range(self.max_attempts):
            try:
                await self.put_entry(session, seq, value, write_id=write_id)
            except EntryTakenError:
                seq += 1
                continue
            return seq
        raise EntryTakenError(f"session {session} is too busy: gave up after {self.max_attempts} races")

    async def update_record(self, session: str, name: str, fn: RecordUpdate) -> Record:
        """Store ``fn(current value or None)``, deciding again on the fresh value after a
        conflict (so ``fn`` must only compute); returns what was stored."""
        for _ in range(self.max_attempts):
            current = await self.load_record(session, name)
            value = fn(None if current is None else current.value)
            expected = NO_RECORD if current is None else current.version
            try:
                version = await self.save_record(
                    session, name, value, expected_version=expected, write_id=new_write_id()
                )
            except RecordConflictError:
                continue
            return Record(name, value, version)
        raise RecordConflictError(
            f"record {name} of {session} is too busy: gave up after {self.max_attempts} races"
        )


class InMemorySessionStore(SessionStore):
    """The session store of one process (tests, the testing harness); values kept as JSON bytes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str], tuple[int, bytes]] = {}
        self._writes: dict[tuple[str, str], deque[tuple[str, int]]] = {}
        self._logs: dict[str, dict[int, tuple[str, bytes]]] = {}

    async def load_record(self, session: str, name: str) -> Record | None:
        with self._lock:
            stored = self._records.get((session, name))
        return None if stored is None else Record(name, load_value(stored[1]), stored[0])

    async def save_record(
        self, session: str, name: str, value: JsonValue, *, expected_version: int, write_id: str | None = None
    ) -> int:
        data = dump_value(value)
        write_id = write_id or new_write_id()
        key = (session, name)
        with self._lock:
            recent = self._writes.setdefault(key, deque(maxlen=RECENT_WRITES))
            landed = next((version for wid, version in recent if wid == write_id), None)
            if landed is not None:
                return landed
            current = self._records.get(key, (NO_RECORD, b""))[0]
            if current != expected_version:
                raise RecordConflictError(f"record {name} is at version {current}, not {expected_version}")
            self._records[key] = (current + 1, data)
            recent.append((write_id, current + 1))
        return current + 1

    async def list_records(self, session: str, prefix: str, *, limit: int = 1000) -> list[Record]:
        with self._lock:
            found = sorted(
                (name, stored)
                for (owner, name), stored in self._records.items()
                if owner == session and name.startswith(prefix)
            )
        return [Record(name, load_value(data), version) for name, (version, data) in found[:limit]]

    async def put_entry(
        self, session: str, seq: int, value: JsonValue, *, write_id: str | None = None
    ) -> None:
        if seq < 1:
            raise ValueError(f"entries are numbered from 1, not {seq}")
        data = dump_value(value)
        write_id = write_id or new_write_id()
        with self._lock:
            log = self._logs.setdefault(session, {})
            held = log.get(seq)
            if held is not None:
                if held[0] == write_id:
                    return
                raise EntryTakenError(f"entry {seq} of {session} is taken")
            log[seq] = (write_id, data)

    async def replace_entry(self, session: str, seq: int, value: JsonValue) -> None:
        data = dump_value(value)
        with self._lock:
            log = self._logs.get(session, {})
            if seq not in log:
                raise LookupError(f"session {session} has no entry {seq}")
            log[seq] = (log[seq][0], data)

    async def read_entries(
        self, session: str, *, after: int = 0, limit: int | None = None, newest: bool = False
    ) -> list[Entry]:
        with self._lock:
            held = sorted(
                (seq, data) for seq, (_, data) in self._logs.get(session, {}).items() if seq > after
            )
        if limit is not None:
            held = held[-limit:] if newest else held[:limit]
            if limit == 0:
                held = []
        return [Entry(seq, load_value(data)) for seq, data in held]
