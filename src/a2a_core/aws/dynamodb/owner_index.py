"""The owner index (``by-owner``) read back: one owner's tasks, newest created first, a page at a time.

Only a task's first commit carries the index's attributes (`TABLE.owner_key`,
`TABLE.owner_sort_key`, `TABLE.context_attribute`; written by `DynamoDBTaskStore`), so the index
holds one entry per task and no later commit writes it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from a2a_core.aws.calls import Item, aws_call
from a2a_core.aws.dynamodb.keys import TASK_PREFIX, event_key, index_owner, task_key
from a2a_core.aws.resources import TABLE
from a2a_core.core.store import IndexedTask, InvalidPositionError, OwnedTasks

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# Index entries one `list_owned` call examines at most when its filters skip entries.
SCAN_LIMIT = 1000


class OwnerIndex:
    """`TaskStore.list_owned` and `count_owned` for a table built from `resources.TABLE`."""

    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        *,
        scan_limit: int = SCAN_LIMIT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._table = table_name
        self._scan_limit = scan_limit
        self._clock = clock

    async def list_owned(
        self, owner: str, *, context_id: str | None = None, after: str | None = None, limit: int
    ) -> OwnedTasks:
        # The index is a GSI: eventually consistent, so a task created a moment ago may be missing.
        query = self._owner_query(owner, context_id)
        if after is not None:
            query["ExclusiveStartKey"] = _start_key(owner, after)
        found: list[IndexedTask] = []
        scanned = 0
        while True:
            # Limit counts entries examined before the filters. Ask for what the page still needs
            # (and one more, to know whether anything follows); when the filters skipped entries,
            # ask for as many as were examined so far: a sparse context doubles the scan each
            # round (a few queries), a dense one never reads much past its page.
            wanted = max(limit + 1 - len(found), scanned)
            query["Limit"] = min(wanted, self._scan_limit - scanned)
            page = await aws_call(self._client.query, **query)
            scanned += page["ScannedCount"]
            found.extend(map(_indexed, page["Items"]))
            last = page.get("LastEvaluatedKey")
            if len(found) > limit or last is None or scanned >= self._scan_limit:
                break
            query["ExclusiveStartKey"] = last
        if len(found) > limit:
            tasks = tuple(found[:limit])
            return OwnedTasks(tasks, tasks[-1].position)
        return OwnedTasks(tuple(found), None if last is None else _last_position(last))

    async def count_owned(self, owner: str, *, context_id: str | None = None) -> int:
        query = self._owner_query(owner, context_id)
        query["Select"] = "COUNT"
        count = 0
        while True:
            page = await aws_call(self._client.query, **query)
            count += page["Count"]
            if "LastEvaluatedKey" not in page:
                return count
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _owner_query(self, owner: str, context_id: str | None) -> dict[str, Any]:
        """A newest-first query of ``owner``'s index entries: unexpired (TTL deletes items days
        after they expire) and, with ``context_id``, in that context only."""
        names = {"#owner": TABLE.owner_key, "#ttl": TABLE.ttl_attribute}
        values: dict[str, Any] = {
            ":owner": {"S": index_owner(owner)},
            ":now": {"N": str(int(self._clock()))},
        }
        condition = "#ttl > :now"
        if context_id is not None:
            names["#ctx"] = TABLE.context_attribute
            values[":ctx"] = {"S": context_id}
            condition += " AND #ctx = :ctx"
        return {
            "TableName": self._table,
            "IndexName": TABLE.owner_index,
            "KeyConditionExpression": "#owner = :owner",
            "FilterExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ScanIndexForward": False,
        }


# A position in the owner index: the entry's creation time (as DynamoDB returned the number) and
# task id, from which the start key is rebuilt (the owner comes from the query, the sort key of
# a first commit is always `event_key(1)`), so positions stay short.


def _indexed(item: Item) -> IndexedTask:
    created_at = item[TABLE.owner_sort_key]["N"]
    task_id = item[TABLE.partition_key]["S"].removeprefix(TASK_PREFIX)
    return IndexedTask(
        task_id=task_id,
        context_id=item[TABLE.context_attribute]["S"],
        created_at=float(created_at),
        position=_position(created_at, task_id),
    )


def _last_position(key: Item) -> str:
    return _position(key[TABLE.owner_sort_key]["N"], key[TABLE.partition_key]["S"].removeprefix(TASK_PREFIX))


def _position(created_at: str, task_id: str) -> str:
    return json.dumps([created_at, task_id], separators=(",", ":"))


def _start_key(owner: str, position: str) -> Item:
    try:
        parsed = json.loads(position)
    except ValueError:
        parsed = None
    match parsed:
        case [str(created_at), str(task_id)] if task_id and _finite(created_at):
            pass
        case _:
            raise InvalidPositionError(f"not a task list position: {position!r}")
    return {
        TABLE.owner_key: {"S": index_owner(owner)},
        TABLE.owner_sort_key: {"N": created_at},
        TABLE.partition_key: {"S": task_key(task_id)},
        TABLE.sort_key: {"S": event_key(1)},
    }


def _finite(number: str) -> bool:
    try:
        return math.isfinite(float(number))
    except ValueError:
        return False
