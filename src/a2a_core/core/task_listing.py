"""ListTasks (A2A 1.0): the caller's own tasks, filtered, a page at a time.

Order: newest *created* first. The spec orders by last status update; an index in that order
would be rewritten on every state change (2-3x a simple task's writes), while creation order
comes from the sparse owner index that only a task's first commit writes. Pages never repeat or
skip a task: a page token holds the index position after the page's last task, and tasks
created later sort before it.

``total_size`` is counted when the first page is served and carried in the token, so every page
of one listing reports the same total: a COUNT query of the owner index without state filters;
with a state or ``statusTimestampAfter`` filter the first page reads every candidate task (at
most ``count_limit`` of them; beyond that the total counts only the newest ``count_limit``
candidates' matches). Later filtered pages read at most ``scan_limit`` candidates each and may
hold fewer than ``pageSize`` tasks while a next page exists, as the spec allows.
"""

from __future__ import annotations

from datetime import UTC, datetime

from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.ledger import TaskLedger
from a2a_core.core.listing import TaskList
from a2a_core.core.page_tokens import Cursor, PageTokens, Scope
from a2a_core.core.requests import ListTasksQuery, TaskPage
from a2a_core.core.store import InvalidPositionError
from a2a_core.domain import Task, TaskState

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100


class TaskLister:
    def __init__(self, ledger: TaskLedger, tokens: PageTokens, *, scan_limit: int, count_limit: int) -> None:
        self._ledger = ledger
        self._tokens = tokens
        self._scan_limit = scan_limit
        self._count_limit = count_limit

    async def page(self, query: ListTasksQuery, owner: str, history_length: int) -> TaskPage:
        """One page of ``owner``'s tasks; ``history_length`` is the engine's clamped limit."""
        size = _page_size(query.page_size)
        if history_length < 0:
            raise InvalidParamsError("historyLength must not be negative", data={"field": "historyLength"})
        context_id = query.context_id or None
        since = _utc(query.status_timestamp_after)
        scope = _scope(owner, query, context_id, since)
        cursor = self._tokens.read(query.page_token, scope) if query.page_token else None
        try:
            listing, total = await self._list(
                owner, query.state, since, context_id, cursor, size, history_length
            )
        except InvalidPositionError:
            # Issued by this server, yet its position is unreadable: a token from another version.
            raise InvalidParamsError(
                "pageToken is no longer valid; list again without pageToken", data={"field": "pageToken"}
            ) from None
        tasks = tuple(_shown(task, query.include_artifacts) for task in listing.tasks)
        next_token = ""
        if listing.next_position is not None:
            next_token = self._tokens.issue(scope, Cursor(listing.next_position, total))
        return TaskPage(tasks=tasks, next_page_token=next_token, page_size=size, total_size=total)

    async def _list(
        self,
        owner: str,
        state: TaskState | None,
        since: datetime | None,
        context_id: str | None,
        cursor: Cursor | None,
        size: int,
        history_length: int,
    ) -> tuple[TaskList, int]:
        position = cursor.position if cursor else None
        if state is None and since is None:
            listing = await self._ledger.list_tasks(
                owner, context_id=context_id, after=position, limit=size, history_length=history_length
            )
            if cursor is not None:
                return listing, cursor.total
            if listing.next_position is None:
                return listing, len(listing.tasks)  # one page holds them all: no need to count
            return listing, await self._ledger.count_tasks(owner, context_id=context_id)
        listing = await self._ledger.list_tasks(
            owner,
            context_id=context_id,
            after=position,
            limit=size,
            history_length=history_length,
            keep=lambda task: _matches(task, state, since),
            scan_limit=self._scan_limit if cursor else self._count_limit,
            count=cursor is None,
        )
        return listing, cursor.total if cursor else listing.matched


def _page_size(requested: int | None) -> int:
    if requested is None:
        return DEFAULT_PAGE_SIZE
    if not 1 <= requested <= MAX_PAGE_SIZE:
        raise InvalidParamsError(
            f"pageSize must be between 1 and {MAX_PAGE_SIZE} (got {requested})",
            data={"field": "pageSize", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        )
    return requested


def _scope(owner: str, query: ListTasksQuery, context_id: str | None, since: datetime | None) -> Scope:
    """What a token is bound to: the caller and every filter (page size and the shape of each
    task may change from page to page)."""
    state = query.state.value if query.state is not None else None
    return (owner, context_id, state, since.isoformat() if since else None, query.tenant or None)


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _matches(task: Task, state: TaskState | None, since: datetime | None) -> bool:
    if state is not None and task.status.state != state:
        return False
    if since is None:
        return True
    stamp = _timestamp(task.status.timestamp)
    return stamp is not None and stamp >= since


def _timestamp(value: str | None) -> datetime | None:
    """A status timestamp as a UTC datetime; None if missing or unreadable (agents may set it)."""
    if not value:
        return None
    try:
        return _utc(datetime.fromisoformat(value))
    except ValueError:
        return None


def _shown(task: Task, include_artifacts: bool | None) -> Task:
    return task if include_artifacts else task.model_copy(update={"artifacts": None})
