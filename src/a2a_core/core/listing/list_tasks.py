"""ListTasks (A2A 1.0): the caller's own tasks, filtered, a page at a time.

Every page costs about the same whatever the caller's task count and filters: one read of the
store's listing index, whose entries already carry the filters (`TaskStore.list_owned`), and
one read of each task on the page (`a2a_core.core.listing.pages`).

Order: with ``contextId``, newest created first (a conversation in the order its tasks began);
otherwise tasks in progress (submitted, working) first, newest turn first, then the others by
status timestamp, newest first: the protocol's order (`a2a_core.core.tasklog.list_keys`). A page token
holds the index position after the page's last task, so pages never repeat an entry; a task
whose status changes while a client pages through moves to its new place (it may then be shown
twice, or missed by this listing).

``total_size`` is exact on the last page. Counting a listing whole would read every one of its
index entries (a cost that grows with the caller's tasks), so before the last page it is a lower
bound: the tasks listed so far, this page's included, plus one (at least one more follows).
"""

from __future__ import annotations

from datetime import UTC, datetime

from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.listing.page_tokens import Cursor, PageTokens, Scope
from a2a_core.core.listing.pages import Filters, list_page
from a2a_core.core.requests import ListTasksQuery, TaskPage
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.store import InvalidPositionError
from a2a_core.domain import Task

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100


class TaskLister:
    def __init__(self, ledger: TaskLedger, tokens: PageTokens) -> None:
        self._ledger = ledger
        self._tokens = tokens

    async def page(self, query: ListTasksQuery, owner: str, history_length: int) -> TaskPage:
        """One page of ``owner``'s tasks; ``history_length`` is the engine's clamped limit."""
        size = _page_size(query.page_size)
        if history_length < 0:
            raise InvalidParamsError("historyLength must not be negative", data={"field": "historyLength"})
        filters = Filters(query.context_id or None, query.state, _utc(query.status_timestamp_after))
        scope = _scope(owner, query, filters)
        cursor = self._tokens.read(query.page_token, scope) if query.page_token else None
        try:
            listing = await list_page(
                self._ledger,
                owner,
                filters,
                after=cursor.position if cursor else None,
                size=size,
                history_length=history_length,
            )
        except InvalidPositionError:
            # Issued by this server, yet its position is unreadable: a token from another version.
            raise InvalidParamsError(
                "pageToken is no longer valid; list again without pageToken", data={"field": "pageToken"}
            ) from None
        tasks = tuple(_shown(task, query.include_artifacts) for task in listing.tasks)
        listed = (cursor.listed if cursor else 0) + len(tasks)
        if listing.next_position is None:
            return TaskPage(tasks=tasks, next_page_token="", page_size=size, total_size=listed)
        token = self._tokens.issue(scope, Cursor(listing.next_position, listed))
        return TaskPage(tasks=tasks, next_page_token=token, page_size=size, total_size=listed + 1)


def _page_size(requested: int | None) -> int:
    if requested is None:
        return DEFAULT_PAGE_SIZE
    if not 1 <= requested <= MAX_PAGE_SIZE:
        raise InvalidParamsError(
            f"pageSize must be between 1 and {MAX_PAGE_SIZE} (got {requested})",
            data={"field": "pageSize", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        )
    return requested


def _scope(owner: str, query: ListTasksQuery, filters: Filters) -> Scope:
    """What a token is bound to: the caller and every filter (page size and the shape of each
    task may change from page to page)."""
    state = filters.state.value if filters.state is not None else None
    since = filters.since.isoformat() if filters.since else None
    return (owner, filters.context_id, state, since, query.tenant or None)


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _shown(task: Task, include_artifacts: bool | None) -> Task:
    return task if include_artifacts else task.model_copy(update={"artifacts": None})
