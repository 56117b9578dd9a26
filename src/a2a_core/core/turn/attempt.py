"""One attempt's writes to its task, fenced: what every emit of a `TaskContext` goes through.

Each write is conditional on the task still being on this turn *and attempt* (the run lease the
worker's claim wrote) and not canceled, so a cancel is never overwritten by a late completion and
a worker whose turn was taken over (its lease ran out while it still ran) changes nothing more.
The first write or read that finds the run cannot go on (the turn lost or canceled, the store
unavailable) records why (`interruption`); the worker waits on it and stops the agent, whatever
the agent did with the error it got.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from a2a_core.core.backoff import Backoff
from a2a_core.core.errors import (
    InvalidTransitionError,
    StoreUnavailableError,
    TaskCanceledError,
    TurnLostError,
)
from a2a_core.core.tasklog.changes import Change
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.lifecycle import INTERRUPTED_STATES, is_terminal
from a2a_core.core.tasklog.records import Commit, RunLease
from a2a_core.core.tasklog.snapshots import Folding
from a2a_core.domain import TaskState

T = TypeVar("T")
logger = logging.getLogger(__name__)


class Attempt:
    def __init__(
        self,
        ledger: TaskLedger,
        task_id: str,
        run_id: str,
        *,
        head: Commit | None = None,
        folding: Folding | None = None,
    ) -> None:
        """``head``: the worker's claim of the turn (its run names this attempt: every write is
        conditional on it); ``folding``: the task folded through ``head``, if known."""
        self.ledger = ledger
        self.task_id = task_id
        self.run_id = run_id
        self.head = head  # our last write: the next one is decided on it without a read
        # The run lease of the claim: the turn and attempt this run writes for (its fence).
        self.lease: RunLease | None = head.run if head is not None else None
        self._attempt = None if self.lease is None else self.lease.attempt
        # Why this run cannot go on (set once, by the first write or read that found out).
        self.interruption: Exception | None = None
        self._interrupted = asyncio.Event()
        # Kept up to date with our writes: a write due to carry a snapshot takes it from here.
        self._folding = folding
        self.ended = False  # the turn's ending was written
        self.writes = 0  # how many writes this attempt made
        # The lease as this attempt's heartbeat last renewed it (`renewed`), carried by its writes.
        self._lease_until: float | None = None

    def renewed(self, lease_until: float) -> None:
        """Note that the heartbeat pushed this attempt's lease back to ``lease_until``: each
        later commit carries it (a commit copies its head's lease, and ours may predate it)."""
        self._lease_until = max(self._lease_until or 0.0, lease_until)

    def interrupt(self, error: Exception) -> None:
        """Note why the run cannot go on (the first reason counts)."""
        if self.interruption is None:
            self.interruption = error
            self._interrupted.set()

    async def wait_interrupted(self) -> Exception:
        """Return `interruption` once this run cannot go on."""
        await self._interrupted.wait()
        assert self.interruption is not None
        return self.interruption

    async def watch_cancel(self, *, poll_initial: float = 0.25, poll_max: float = 2.0) -> None:
        """Interrupt the run once a client cancels the task, while the agent emits nothing (each
        write of ours looks at the head itself): wait on the task's log (woken on appends where
        the store can tell, else backing off from ``poll_initial`` to ``poll_max`` seconds), and
        read the head only when something not ours may have come. A read the store fails is
        tried again at the next poll."""
        backoff = Backoff(poll_initial, poll_max)
        seen = self.head.last_seq if self.head is not None else 0
        while self.interruption is None:
            await self.ledger.wait_for_append(self.task_id, seen, backoff.next())
            ours = self.head.last_seq if self.head is not None else 0
            if ours > seen:  # we wrote meanwhile: that write found no cancel
                seen = ours
                continue
            try:
                head = await self.ledger.head(self.task_id)
            except StoreUnavailableError:
                continue
            if head.state == TaskState.canceled:
                self.interrupt(TaskCanceledError(f"Task {self.task_id} was canceled"))
            seen = head.last_seq

    async def call(self, call: Awaitable[T]) -> T:
        """``call`` (a read of this run), noting a store that is unavailable: the worker must
        know, whatever the agent does with the error."""
        try:
            return await call
        except StoreUnavailableError as error:
            self.interrupt(error)
            raise

    async def write(self, events: list[Any], *, ends: bool = False) -> Commit:
        """Append ``events`` for this attempt; ``ends``: they end the turn (nothing may follow)."""
        if self.ended:
            raise InvalidTransitionError("This turn has ended; the agent cannot emit more")
        if self.interruption is not None:
            raise _again(self.interruption)

        def decide(head: Commit) -> Change:
            if head.state == TaskState.canceled:
                raise TaskCanceledError(f"Task {self.task_id} was canceled")
            # Another worker took this turn over (our lease ran out while we ran) and started a
            # new attempt, or the turn ended without us (or by a write of ours whose answer we
            # never got, as when the store's answer to a question came after the agent's time ran
            # out): a late writer must change nothing.
            run = head.run
            if (
                is_terminal(head.state)
                or head.state in INTERRUPTED_STATES
                or run is None
                or run.run_id != self.run_id
                or (self._attempt is not None and run.attempt != self._attempt)
            ):
                raise TurnLostError(
                    f"Task {self.task_id}'s turn is no longer this run's ({head.state.value})"
                )
            if self._lease_until is not None and (run.lease_until or 0.0) < self._lease_until:
                return Change(events, run=run.model_copy(update={"lease_until": self._lease_until}))
            return Change(events)

        previous = self.head
        try:
            commit = await self.ledger.write(self.task_id, decide, head=previous, folding=self._folding)
        except (TaskCanceledError, StoreUnavailableError) as error:
            self.interrupt(error)
            raise
        assert commit is not None
        if self._folding is not None and previous is not None and commit.first_seq == previous.next_seq:
            self._folding.apply(commit)
        else:  # another writer got in between: our fold is stale
            self._folding = None
        self.head = commit
        self.writes += 1
        self.ended = ends
        return commit


def _again(interruption: Exception) -> Exception:
    """The error a write gets once the run was interrupted (a fresh one: each raise its own)."""
    if isinstance(interruption, StoreUnavailableError):
        return StoreUnavailableError("An earlier call of this turn found the task store unavailable")
    if isinstance(interruption, TurnLostError):
        return TurnLostError(str(interruption))
    return TaskCanceledError(str(interruption))
