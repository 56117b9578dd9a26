"""A task store whose calls are tried again, a few times, while the store is briefly unavailable.

The AWS SDK already retries what it knows to be transient (throttling, 5xx) a few times; what
reaches us is what outlived those retries or what the SDK does not retry (DynamoDB's
``TransactionConflictException``), or an answer lost after the write landed. Each is usually gone a
moment later, so every call the ledger makes is tried again after a short, jittered pause before
the error reaches its caller (who then retries the whole request or redelivers the turn).

Retrying an append is safe because appends are idempotent per commit (`TaskStore.append`): the
append whose outcome was unknown is sent again, and either lands, or finds itself already stored
(it had landed: success), or finds another writer's commit (it had not: the ledger decides again).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Collection
from typing import TypeVar

from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import IndexQuery, LogEntry, OwnedTasks, TaskStore

logger = logging.getLogger(__name__)

T = TypeVar("T")
# Pauses before the 2nd, 3rd, ... try: about 0.4 s in all before an error is given up on.
DELAYS = (0.05, 0.1, 0.25)


class RetryingTaskStore(TaskStore):
    """Forwards to ``inner``; a call that raises `StoreUnavailableError` is tried again after each
    of ``delays`` (each jittered to between half and all of it) before the error is raised."""

    def __init__(
        self,
        inner: TaskStore,
        *,
        delays: tuple[float, ...] = DELAYS,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.inner = inner
        self._delays = delays
        self._sleep = sleep

    async def _retried(self, name: str, call: Callable[[], Awaitable[T]]) -> T:
        for delay in self._delays:
            try:
                return await call()
            except StoreUnavailableError:
                logger.warning("task store call %s failed; trying again in %.2f s", name, delay)
                await self._sleep(delay * random.uniform(0.5, 1.0))  # noqa: S311 (jitter)
        return await call()

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        await self._retried("append", lambda: self.inner.append(commit, snapshot))

    async def head(self, task_id: str) -> Commit | None:
        return await self._retried("head", lambda: self.inner.head(task_id))

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        return await self._retried("read", lambda: self.inner.read(task_id, after_seq))

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        return await self._retried("latest", lambda: self.inner.latest(task_id, limit=limit, through=through))

    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        return await self._retried(
            "entries", lambda: self.inner.entries(task_id, first, last, snapshots=snapshots)
        )

    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        return await self._retried("commits_at", lambda: self.inner.commits_at(task_id, first_seqs))

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        return await self._retried("attach_snapshot", lambda: self.inner.attach_snapshot(commit, snapshot))

    async def renew_lease(self, commit: Commit, lease_until: float) -> bool:
        return await self._retried("renew_lease", lambda: self.inner.renew_lease(commit, lease_until))

    async def unlist(self, task_id: str, seq: int) -> None:
        await self._retried("unlist", lambda: self.inner.unlist(task_id, seq))

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        return await self._retried(
            "list_owned", lambda: self.inner.list_owned(owner, query, after=after, limit=limit)
        )

    async def owned(self, task_id: str, owner: str) -> bool:
        return await self._retried("owned", lambda: self.inner.owned(task_id, owner))

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        await self.inner.wait_for_append(task_id, after_seq, timeout)
