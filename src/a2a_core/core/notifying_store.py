"""`NotifyingTaskStore`: a remote task store whose appends wake followers in this process."""

from __future__ import annotations

from collections.abc import Collection

from a2a_core.core.notify import Notifier
from a2a_core.core.records import Commit
from a2a_core.core.store import IndexQuery, LogEntry, OwnedTasks, TaskStore


class NotifyingTaskStore(TaskStore):
    """Wraps a remote store so followers in this process wake on its appends instead of polling.

    `a2a-serverless dev` runs the API and the worker in one process over moto; the wrapper gives
    it the in-memory adapter's immediacy while every write still goes to the real store.
    """

    def __init__(self, inner: TaskStore) -> None:
        self.inner = inner
        self._notifier = Notifier()
        # The last sequence number this process appended, per task: a follower that registers
        # just after an append still sees it without a read. (A dev server's worth of tasks.)
        self._appended: dict[str, int] = {}

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        await self.inner.append(commit, snapshot)
        self._appended[commit.task_id] = max(self._appended.get(commit.task_id, 0), commit.last_seq)
        self._notifier.notify(commit.task_id)

    async def head(self, task_id: str) -> Commit | None:
        return await self.inner.head(task_id)

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        return await self.inner.read(task_id, after_seq)

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        return await self.inner.latest(task_id, limit=limit, through=through)

    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        return await self.inner.entries(task_id, first, last, snapshots=snapshots)

    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        return await self.inner.commits_at(task_id, first_seqs)

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        return await self.inner.attach_snapshot(commit, snapshot)

    async def unlist(self, task_id: str, seq: int) -> None:
        await self.inner.unlist(task_id, seq)

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        return await self.inner.list_owned(owner, query, after=after, limit=limit)

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        # Appends by other processes are not seen here: the caller's next poll finds them.
        await self._notifier.wait(task_id, timeout, ready=lambda: self._appended.get(task_id, 0) > after_seq)
