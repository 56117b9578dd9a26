"""A task store that fails on cue, for the unit tests of what the worker does when the store does.

`FlakyStore` forwards to an in-memory store; `arm` makes the calls of one method fail, from the
first call ``when`` picks on: each planned failure either loses the call (nothing stored) or lets
it land and raises anyway (an answer lost after the write: the outcome the caller cannot know).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import IndexQuery, InMemoryTaskStore, LogEntry, OwnedTasks, TaskStore

T = TypeVar("T")
Failure = Literal["lost", "landed"]
LOST: Failure = "lost"
LANDED: Failure = "landed"


@dataclass
class _Plan:
    failures: list[Failure]
    when: Callable[[Commit | None], bool]
    started: bool = False


@dataclass
class FlakyStore(TaskStore):
    inner: TaskStore = field(default_factory=InMemoryTaskStore)
    plans: dict[str, _Plan] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)  # "<method>:<lost|landed>", in order

    def arm(
        self, method: str, *failures: Failure, when: Callable[[Commit | None], bool] = lambda _: True
    ) -> None:
        """Fail the next calls of ``method``, from the first one ``when`` picks (its commit, for
        `append`; None for the others), one call per item of ``failures``."""
        self.plans[method] = _Plan(list(failures), when)

    async def _call(self, method: str, call: Callable[[], Awaitable[T]], commit: Commit | None = None) -> T:
        plan = self.plans.get(method)
        if plan is not None and plan.failures and (plan.started or plan.when(commit)):
            plan.started = True
            failure = plan.failures.pop(0)
            self.failed.append(f"{method}:{failure}")
            if failure == "landed":
                await call()
            raise StoreUnavailableError()
        return await call()

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        await self._call("append", lambda: self.inner.append(commit, snapshot), commit)

    async def head(self, task_id: str) -> Commit | None:
        return await self._call("head", lambda: self.inner.head(task_id))

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        return await self._call("read", lambda: self.inner.read(task_id, after_seq))

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        return await self._call("latest", lambda: self.inner.latest(task_id, limit=limit, through=through))

    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        return await self._call(
            "entries", lambda: self.inner.entries(task_id, first, last, snapshots=snapshots)
        )

    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        return await self._call("commits_at", lambda: self.inner.commits_at(task_id, first_seqs))

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        return await self._call("attach_snapshot", lambda: self.inner.attach_snapshot(commit, snapshot))

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        return await self.inner.list_owned(owner, query, after=after, limit=limit)

    async def unlist(self, task_id: str, seq: int) -> None:
        await self.inner.unlist(task_id, seq)

    async def owned(self, task_id: str, owner: str) -> bool:
        return await self._call("owned", lambda: self.inner.owned(task_id, owner))

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        await self.inner.wait_for_append(task_id, after_seq, timeout)
