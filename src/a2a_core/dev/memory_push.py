"""The push function of ``a2a-serverless dev --backend memory``: push notifications delivered as the
other backends deliver them.

In AWS the table's stream announces each commit to the push function, and dev's local backend
feeds the very same handler from the emulator's stream. The memory backend has no stream: its
task store announces each commit it appends (`CommitFeedStore`), and `deliver_commits` hands them
to the same `PushNotifier`, commits of one task in order, tasks concurrently (as the push
handler runs a batch). Notifications are signed by a key of this process (`LocalSigner`), which
the server's ``/.well-known/jwks.json`` publishes, as dev's local backend does.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from functools import cached_property

from a2a_core.compose.adapters import InMemoryAdapters
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.push.notifier import CommitRef, PushNotifier

logger = logging.getLogger(__name__)


class CommitFeedStore(InMemoryTaskStore):
    """This process's task store, announcing each commit it appends on ``feed``."""

    def __init__(self, feed: asyncio.Queue[CommitRef]) -> None:
        super().__init__()
        self.feed = feed

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        await super().append(commit, snapshot)
        self.feed.put_nowait(CommitRef(commit.task_id, commit.first_seq, commit.state, commit))


class PushingMemoryAdapters(InMemoryAdapters):
    """The memory backend's adapters, its task store announcing commits (``commits``)."""

    @cached_property
    def commits(self) -> asyncio.Queue[CommitRef]:
        return asyncio.Queue()

    @cached_property
    def store(self) -> CommitFeedStore:
        return CommitFeedStore(self.commits)


async def deliver_commits(commits: asyncio.Queue[CommitRef], notifier: PushNotifier) -> None:
    """Notify about each announced commit, forever; a task's commits one after another."""
    last: dict[str, asyncio.Task[None]] = {}
    while True:
        ref = await commits.get()
        task = asyncio.create_task(_after(last.get(ref.task_id), ref, notifier))
        last[ref.task_id] = task
        task.add_done_callback(functools.partial(_forget, last, ref.task_id))


async def _after(previous: asyncio.Task[None] | None, ref: CommitRef, notifier: PushNotifier) -> None:
    if previous is not None:
        with contextlib.suppress(Exception):
            await previous
    try:
        await notifier.on_commit(ref)
    except Exception:
        logger.exception("push for commit %s of task %s failed", ref.first_seq, ref.task_id)


def _forget(last: dict[str, asyncio.Task[None]], key: str, done: asyncio.Task[None]) -> None:
    if last.get(key) is done:
        del last[key]
