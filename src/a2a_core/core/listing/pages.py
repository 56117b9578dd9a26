"""One page of an owner's tasks: candidates from the store's listing index (one index read),
each read as GetTask reads it (together, a few at a time), kept when it matches now.

The index already narrows the candidates to the filters (`TaskStore.list_owned`), so a page reads
about as many tasks as it returns, whatever the owner's task count. What it cannot know is
checked on the tasks read: the exact state within the ``active`` class (submitted or working),
a status or timestamp filter within a context (whose index holds no state), and entries left
behind by a move (`Commit.listing`): those are dropped, so a page may hold fewer tasks than
were asked for while a next page exists, as the protocol allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.list_keys import IndexedTask, IndexQuery, listed_class, parse_time
from a2a_core.core.tasklog.records import Commit
from a2a_core.domain import Task, TaskState


@dataclass(frozen=True)
class Filters:
    context_id: str | None = None
    state: TaskState | None = None
    since: datetime | None = None  # aware (UTC)

    def index_query(self) -> IndexQuery:
        return IndexQuery(
            context_id=self.context_id,
            listed=None if self.state is None else listed_class(self.state),
            since=None if self.since is None else self.since.timestamp(),
        )

    def match(self, task: Task) -> bool:
        if self.context_id is not None and task.context_id != self.context_id:
            return False
        if self.state is not None and task.status.state != self.state:
            return False
        if self.since is None:
            return True
        stamp = parse_time(task.status.timestamp)
        return stamp is not None and stamp >= self.since.timestamp()


@dataclass(frozen=True)
class TaskList:
    tasks: tuple[Task, ...]
    # Where the next page starts (a store position); None on the last page.
    next_position: str | None


async def list_page(
    ledger: TaskLedger,
    owner: str,
    filters: Filters,
    *,
    after: str | None,
    size: int,
    history_length: int,
) -> TaskList:
    """Up to ``size`` of ``owner``'s tasks matching ``filters``, after ``after``."""
    index = await ledger.store.list_owned(owner, filters.index_query(), after=after, limit=size)
    task_ids = list(dict.fromkeys(entry.task_id for entry in index.tasks))
    views = {
        view.task.id: view
        for view in await ledger.views(task_ids, history_length=history_length, owner=owner)
    }
    tasks: list[Task] = []
    for entry in index.tasks:
        view = views.get(entry.task_id)
        if view is not None and _current(entry, view.head) and filters.match(view.task):
            tasks.append(view.task)
            del views[entry.task_id]  # a task listed twice (a moment after a move) is shown once
    return TaskList(tuple(tasks), index.next_position)


def _current(entry: IndexedTask, head: Commit) -> bool:
    """Whether ``entry`` is the one ``head``'s task is listed by (not one left behind by a move)."""
    if entry.seq is None or head.listing is None:
        return True
    return entry.seq == head.listing
