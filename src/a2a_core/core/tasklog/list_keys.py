"""Where a task sits in its owner's listing index (ListTasks): the class it is listed under and
its place in the order, both decided from the commit that carries its entry.

A task is listed under the *class* of its state: each terminal or interrupted state is a class
of its own, and the states of a turn in progress (submitted, working) are one class, ``active``,
so an entry moves when a turn starts or ends, never while it runs (the worker's claim and its
progress messages write no index). A status filter on submitted or working therefore finds the
active tasks, and the lister keeps those in the asked-for state.

The order: active tasks first (newest turn first: they are the ones changing now), then every
other task by its status timestamp, newest first, which is the protocol's order (a task's status
does not change between the commit that entered its class and the next class change).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from a2a_core.core.tasklog.records import Commit, StatusChanged
from a2a_core.domain import TaskState

ACTIVE = "active"
_ACTIVE_STATES = frozenset({TaskState.submitted, TaskState.working, TaskState.unknown})
# Active tasks sort above every status time: this plus when their turn began (epoch seconds).
ACTIVE_BASE = 10_000_000_000.0


class InvalidPositionError(ValueError):
    """A list position this adapter did not produce (`TaskStore.list_owned`)."""


@dataclass(frozen=True)
class IndexQuery:
    """What a listing asks the index for (`TaskStore.list_owned`)."""

    # Only tasks created in this context.
    context_id: str | None = None
    # Only tasks listed under this class (`list_keys.listed_class`).
    listed: str | None = None
    # Only tasks whose status timestamp may be at or after this (epoch seconds).
    since: float | None = None


@dataclass(frozen=True)
class IndexedTask:
    """One index entry: enough to read its task, or to tell it is out of date."""

    task_id: str
    # The commit carrying the entry (its first_seq), when the entry moves with the task's class
    # (`Commit.listing`): once the task's head names another carrier the entry is out of date.
    # None for an entry that never moves (the context index's).
    seq: int | None
    # Where a listing resumes to continue after this task (opaque, see `TaskStore.list_owned`).
    position: str


@dataclass(frozen=True)
class OwnedTasks:
    tasks: tuple[IndexedTask, ...]
    # Where the next call continues; None once the listing is exhausted.
    next_position: str | None


def listed_class(state: TaskState) -> str:
    return ACTIVE if state in _ACTIVE_STATES else state.value


def class_states(listed: str) -> list[TaskState]:
    """The states listed under the class ``listed``."""
    return sorted(_ACTIVE_STATES) if listed == ACTIVE else [TaskState(listed)]


def next_listing(head: Commit, state: TaskState, first_seq: int, *, status_changed: bool) -> int:
    """The `Commit.listing` of a commit at ``first_seq`` on ``head`` that leaves the task in
    ``state`` (``status_changed``: the commit holds a status change).

    A commit carries the entry when it enters a class, and also on any status change of a task
    whose class is not ``active``: that task left its class and came back within the commit (an
    answer and the next question at once), and its status timestamp, by which it is ordered, is
    new. A task whose head predates listing by class is listed from its next commit on."""
    if head.listing is None:
        return first_seq
    same = listed_class(state) == listed_class(head.state)
    if same and (listed_class(state) == ACTIVE or not status_changed):
        return head.listing
    return first_seq


def carries_entry(commit: Commit) -> bool:
    """Whether ``commit`` carries its task's listing entry (a first commit built without a
    `Commit.listing` does too)."""
    return commit.first_seq == (1 if commit.listing is None else commit.listing)


def sort_value(commit: Commit) -> float:
    """The entry's place in the order (larger: listed earlier), for a commit that carries one."""
    if listed_class(commit.state) == ACTIVE:
        return ACTIVE_BASE + commit.created_at
    stamp = status_time(commit)
    return commit.created_at if stamp is None else stamp


def status_time(commit: Commit) -> float | None:
    """The timestamp of ``commit``'s last status change (epoch seconds); None if it has none or
    it cannot be read (agents may write anything there)."""
    for event in reversed(commit.events):
        if isinstance(event, StatusChanged):
            return parse_time(event.status.timestamp)
    return None


def parse_time(value: str | None) -> float | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).timestamp()
