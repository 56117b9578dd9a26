"""`TaskStore.list_owned` on DynamoDB: one owner's tasks from the table's two listing indexes.

- With a context: the owner index (``by-owner``), whose partition is the owner's context
  (`keys.context_key`); only a task's first commit carries its keys, newest created first.
- Otherwise: the listing index (``by-update``), one entry per task on the commit that entered the
  class of its state (`core.tasklog.list_keys`), sorted by `list_keys.sort_value`; a class filter is a
  filter on the projected state of that commit, ``since`` a condition on the sort key. `DynamoDBTaskStore`
  writes the entries and `unlist` removes one once a newer commit carries it.

Both are global secondary indexes: eventually consistent, so a task written a moment ago may be
missing, or listed under the class it just left.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from a2a_core.aws.calls import Item, KeyTakenError, aws_call
from a2a_core.aws.dynamodb.keys import (
    EVENT_PREFIX,
    TASK_PREFIX,
    context_key,
    event_key,
    index_owner,
    task_key,
)
from a2a_core.aws.resources import TABLE
from a2a_core.core.tasklog.list_keys import (
    IndexedTask,
    IndexQuery,
    InvalidPositionError,
    OwnedTasks,
    class_states,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# Index entries one `list_owned` call examines at most when its filters skip entries.
SCAN_LIMIT = 1000


class OwnerIndex:
    """`TaskStore.list_owned` for a table built from `resources.TABLE`, and `unlist`."""

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
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        context_id = query.context_id
        plan = _ByUpdate(owner, query) if context_id is None else _ByContext(owner, context_id)
        request = plan.request(self._table, int(self._clock()))
        if after is not None:
            request["ExclusiveStartKey"] = plan.start_key(after)
        found: list[IndexedTask] = []
        scanned = 0
        # A filter that skips entries costs a call more queries: ask first for what the page
        # needs (one more, to know whether anything follows; four times that with a class
        # filter, which a quarter of the entries passing fills in one query), then for as many
        # as were examined so far, up to the scan limit. Entries are small: 40 cost one read unit.
        wanted = (limit + 1) * (4 if query.listed is not None else 1)
        while True:
            request["Limit"] = min(wanted, self._scan_limit - scanned)
            page = await aws_call(self._client.query, **request)
            scanned += page["ScannedCount"]
            found.extend(map(plan.entry, page["Items"]))
            last = page.get("LastEvaluatedKey")
            if len(found) > limit or last is None or scanned >= self._scan_limit:
                break
            request["ExclusiveStartKey"] = last
            wanted = max(limit + 1 - len(found), scanned)
        if len(found) > limit:
            tasks = tuple(found[:limit])
            return OwnedTasks(tasks, tasks[-1].position)
        return OwnedTasks(tuple(found), None if last is None else plan.entry(last).position)

    async def unlist(self, task_id: str, seq: int) -> None:
        """Remove the listing entry the commit at ``seq`` carries (a newer one carries it now);
        nothing if that commit is gone."""
        with contextlib.suppress(KeyTakenError):  # expired and swept: no entry left to remove
            await aws_call(
                self._client.update_item,
                TableName=self._table,
                Key={TABLE.partition_key: {"S": task_key(task_id)}, TABLE.sort_key: {"S": event_key(seq)}},
                UpdateExpression="REMOVE #key, #at",
                ConditionExpression="attribute_exists(#pk)",
                ExpressionAttributeNames={
                    "#key": TABLE.list_key,
                    "#at": TABLE.list_sort_key,
                    "#pk": TABLE.partition_key,
                },
            )


class _ByContext:
    """The owner's tasks in one context: the owner index, newest created first."""

    def __init__(self, owner: str, context_id: str) -> None:
        self._key = context_key(owner, context_id)

    def request(self, table: str, now: int) -> dict[str, Any]:
        return {
            "TableName": table,
            "IndexName": TABLE.owner_index,
            "KeyConditionExpression": "#owner = :owner",
            # TTL deletes items days after they expire: until then the expiry filter hides them.
            "FilterExpression": "#ttl > :now",
            "ExpressionAttributeNames": {"#owner": TABLE.owner_key, "#ttl": TABLE.ttl_attribute},
            "ExpressionAttributeValues": {":owner": {"S": self._key}, ":now": {"N": str(now)}},
            "ScanIndexForward": False,
        }

    def entry(self, item: Item) -> IndexedTask:
        task_id = item[TABLE.partition_key]["S"].removeprefix(TASK_PREFIX)
        return IndexedTask(task_id, None, _position(item[TABLE.owner_sort_key]["N"], task_id))

    def start_key(self, position: str) -> Item:
        created_at, task_id = _parse(position, 2)
        return {
            TABLE.owner_key: {"S": self._key},
            TABLE.owner_sort_key: {"N": created_at},
            TABLE.partition_key: {"S": task_key(task_id)},
            TABLE.sort_key: {"S": event_key(1)},
        }


class _ByUpdate:
    """The owner's tasks in listing order: the listing index."""

    def __init__(self, owner: str, query: IndexQuery) -> None:
        self._owner = index_owner(owner)
        self._query = query

    def request(self, table: str, now: int) -> dict[str, Any]:
        names = {"#owner": TABLE.list_key, "#ttl": TABLE.ttl_attribute}
        values: dict[str, Any] = {":owner": {"S": self._owner}, ":now": {"N": str(now)}}
        key, condition = "#owner = :owner", "#ttl > :now"
        if self._query.since is not None:
            names["#at"] = TABLE.list_sort_key
            values[":since"] = {"N": f"{math.floor(self._query.since * 1000) / 1000:.3f}"}
            key += " AND #at >= :since"
        if self._query.listed is not None:
            states = class_states(self._query.listed)
            names["#state"] = TABLE.state_attribute
            values.update({f":s{i}": {"S": state.value} for i, state in enumerate(states)})
            condition += f" AND #state IN ({', '.join(f':s{i}' for i in range(len(states)))})"
        return {
            "TableName": table,
            "IndexName": TABLE.list_index,
            "KeyConditionExpression": key,
            "FilterExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ScanIndexForward": False,
        }

    def entry(self, item: Item) -> IndexedTask:
        task_id = item[TABLE.partition_key]["S"].removeprefix(TASK_PREFIX)
        seq = int(item[TABLE.sort_key]["S"].removeprefix(EVENT_PREFIX))
        return IndexedTask(task_id, seq, _position(item[TABLE.list_sort_key]["N"], task_id, str(seq)))

    def start_key(self, position: str) -> Item:
        at, task_id, seq = _parse(position, 3)
        if not seq.isdigit():
            raise InvalidPositionError(f"not a task list position: {position!r}")
        return {
            TABLE.list_key: {"S": self._owner},
            TABLE.list_sort_key: {"N": at},
            TABLE.partition_key: {"S": task_key(task_id)},
            TABLE.sort_key: {"S": event_key(int(seq))},
        }


# A position: the entry's sort key (as DynamoDB returned the number), its task id and (listing
# index) the seq of the commit carrying it, from which the start key is rebuilt; short.


def _position(*parts: str) -> str:
    return json.dumps(list(parts), separators=(",", ":"))


def _parse(position: str, length: int) -> list[str]:
    try:
        parsed = json.loads(position)
    except ValueError:
        parsed = None
    if (
        not isinstance(parsed, list)
        or len(parsed) != length
        or not all(isinstance(part, str) and part for part in parsed)
        or not _finite(parsed[0])
    ):
        raise InvalidPositionError(f"not a task list position: {position!r}")
    return parsed


def _finite(number: str) -> bool:
    try:
        return math.isfinite(float(number))
    except ValueError:
        return False
