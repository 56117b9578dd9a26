"""`WakingTaskStore`: a remote task store that this process alone writes, whose appends wake
followers here and whose logs it keeps (`a2a-serverless dev` on the AWS emulator)."""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Collection

from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import IndexQuery, LogEntry, OwnedTasks, TaskStore
from a2a_core.core.wakeups import Wakeups

# The logs kept: of the most recently written tasks, up to this many tasks and bytes; older
# ones are read from the store.
KEPT_TASKS = 10_000
KEPT_BYTES = 64 * 1024 * 1024


class WakingTaskStore(TaskStore):
    """Wraps a remote store that only this process writes (dev's emulated table: dev holds its
    state directory's lock), so followers here wake on its appends instead of polling, and reads
    of the tasks it wrote are answered from what it appended.

    `a2a-serverless dev` runs the API and the worker in one process over the emulator: every write
    still goes to the real store (and dev's journal), but a task written here, from its first
    commit on, is read back from memory: a blocking send waiting for its turn to end, the worker
    claiming it and the answer that follows read nothing from the emulator, whose every call
    costs more than the rest of a turn. Tasks from before this process (a restored state) and
    the listing indexes are read from the store, as is a task once `KEPT_TASKS` newer ones
    pushed it out.
    """

    def __init__(
        self, inner: TaskStore, *, kept_tasks: int = KEPT_TASKS, kept_bytes: int = KEPT_BYTES
    ) -> None:
        self.inner = inner
        self._wakeups = Wakeups()
        self._lock = threading.Lock()  # appends come from the API's loop and the worker's
        # Per task written here from its first commit on: its stored entries, in order.
        self._logs: OrderedDict[str, list[LogEntry]] = OrderedDict()
        self._sizes: dict[str, int] = {}
        self._kept, self._kept_bytes, self._bytes = kept_tasks, kept_bytes, 0
        # The last sequence number this process appended, per task: a follower that registers
        # just after an append still sees it without a read. (A dev server's worth of tasks.)
        self._appended: dict[str, int] = {}

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        await self.inner.append(commit, snapshot)
        self._keep(commit, snapshot)
        self._appended[commit.task_id] = max(self._appended.get(commit.task_id, 0), commit.last_seq)
        self._wakeups.wake(commit.task_id)

    async def head(self, task_id: str) -> Commit | None:
        log = self._log(task_id)
        return log[-1].commit if log else await self.inner.head(task_id)

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        log = self._log(task_id)
        if not log:
            return await self.inner.read(task_id, after_seq)
        start = bisect.bisect_right(log, after_seq, key=lambda entry: entry.commit.last_seq)
        return [entry.commit for entry in log[start:]]

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        log = self._log(task_id)
        if not log:
            return await self.inner.latest(task_id, limit=limit, through=through)
        end = len(log) if through is None else bisect.bisect_right(log, through, key=_first_seq)
        return log[max(0, end - limit) : end][::-1]

    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        log = self._log(task_id)
        if not log:
            return await self.inner.entries(task_id, first, last, snapshots=snapshots)
        found = log[
            bisect.bisect_left(log, first, key=_first_seq) : bisect.bisect_right(log, last, key=_first_seq)
        ]
        return found if snapshots else [LogEntry(entry.body) for entry in found]

    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        log = self._log(task_id)
        if not log:
            return await self.inner.commits_at(task_id, first_seqs)
        wanted = set(first_seqs)
        return [entry.commit for entry in log if entry.commit.first_seq in wanted]

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        attached = await self.inner.attach_snapshot(commit, snapshot)
        if attached:
            with self._lock:
                log = self._logs.get(commit.task_id, [])
                index = bisect.bisect_left(log, commit.first_seq, key=_first_seq)
                if index < len(log) and log[index].commit.first_seq == commit.first_seq:
                    grown = len(snapshot) - len(log[index].snapshot or b"")
                    log[index] = LogEntry(log[index].body, snapshot)
                    self._sizes[commit.task_id] += grown
                    self._bytes += grown
        return attached

    async def unlist(self, task_id: str, seq: int) -> None:
        await self.inner.unlist(task_id, seq)

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        return await self.inner.list_owned(owner, query, after=after, limit=limit)

    async def renew_lease(self, commit: Commit, lease_until: float) -> bool:
        renewed = await self.inner.renew_lease(commit, lease_until)
        with self._lock:  # what is kept lacks the renewal: read the task from the store from now on
            if self._logs.pop(commit.task_id, None) is not None:
                self._bytes -= self._sizes.pop(commit.task_id)
        return renewed

    async def owned(self, task_id: str, owner: str) -> bool:
        return await self.inner.owned(task_id, owner)

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        # Appends by other processes are not seen here: the caller's next poll finds them.
        await self._wakeups.wait(task_id, timeout, ready=lambda: self._appended.get(task_id, 0) > after_seq)

    def _keep(self, commit: Commit, snapshot: bytes | None) -> None:
        body = commit.model_dump_json(exclude_none=True)
        entry = LogEntry(body, snapshot)
        with self._lock:
            log = self._logs.get(commit.task_id)
            if log is None:
                if commit.first_seq != 1:
                    return  # written before this process: its log is the store's to read
                log = self._logs[commit.task_id] = []
                self._sizes[commit.task_id] = 0
            self._logs.move_to_end(commit.task_id)
            index = bisect.bisect_left(log, commit.first_seq, key=_first_seq)
            if index == len(log) or log[index].commit.first_seq != commit.first_seq:
                log.insert(index, entry)  # not an append of the same commit again
                size = len(body) + len(snapshot or b"")
                self._sizes[commit.task_id] += size
                self._bytes += size
            while self._logs and (len(self._logs) > self._kept or self._bytes > self._kept_bytes):
                oldest, _ = self._logs.popitem(last=False)  # read from the store from now on
                self._bytes -= self._sizes.pop(oldest)

    def _log(self, task_id: str) -> list[LogEntry]:
        """A copy of the task's kept log; empty when it is not kept."""
        with self._lock:
            return list(self._logs.get(task_id, ()))


def _first_seq(entry: LogEntry) -> int:
    return entry.commit.first_seq
