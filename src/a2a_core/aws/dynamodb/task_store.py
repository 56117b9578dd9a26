"""`TaskStore` on DynamoDB: one item per commit, each written with one conditional put.

An item is keyed `keys.task_key` / `keys.event_key` (of its first seq) and holds ``task_id``,
``first_seq``, ``last_seq``, ``state``, ``write_id``, the TTL attribute and either ``body`` (the JSON)
or ``body_ref`` (the S3 key of a body larger than ``offload_threshold`` bytes). Only a task's
first commit carries the owner index's attributes (``owner``, ``created_at``, ``context_id``), so
the index holds one entry per task and no later commit writes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from a2a_core.aws.calls import Item, KeyTakenError, aws_call, query_all
from a2a_core.aws.dynamodb.keys import (
    BODY,
    BODY_REF,
    FIRST_SEQ,
    LAST_SEQ,
    MAX_SEQ,
    STATE,
    TASK_ID,
    TASK_PREFIX,
    WRITE_ID,
    event_key,
    index_owner,
    task_key,
)
from a2a_core.aws.resources import TABLE
from a2a_core.core.errors import ConcurrentUpdateError, StoreUnavailableError
from a2a_core.core.records import ANONYMOUS_OWNER, Commit
from a2a_core.core.store import IndexedTask, InvalidPositionError, OwnedTasks, TaskStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from a2a_core.aws.blobs import S3Blobs

# S3 bodies fetched at once by one read; boto3's connection pool holds 10 connections.
_PARALLEL_FETCHES = 8
# Index entries one `list_owned` call examines at most when its filters skip entries.
SCAN_LIMIT = 1000


class DynamoDBTaskStore(TaskStore):
    """Task logs in a DynamoDB table built from `resources.TABLE`; large commits in S3.

    Every item of a task expires ``retention_seconds`` after the task was created (DynamoDB TTL).
    Bodies offloaded to S3 outlive their items when TTL deletes those: the bucket needs a
    lifecycle rule that expires ``tasks/`` objects after ``retention_seconds``.
    """

    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        *,
        blobs: S3Blobs,
        retention_seconds: int,
        offload_threshold: int = 300_000,
        scan_limit: int = SCAN_LIMIT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._scan_limit = scan_limit
        self._table = table_name
        self._blobs = blobs
        self._retention = retention_seconds
        self._offload_threshold = offload_threshold
        self._clock = clock

    async def append(self, commit: Commit) -> None:
        # Nulls are defaults: dropping them keeps a typical commit within one 1 KB write unit.
        body = commit.model_dump_json(exclude_none=True)
        item = self._item(commit)
        ref = None
        if len(body.encode()) > self._offload_threshold:
            # A fresh key per attempt: racing writers of one sequence number never overwrite
            # each other's body, so the winner's item always points at its own.
            ref = f"tasks/{commit.task_id}/{commit.first_seq:010d}-{uuid.uuid4()}.json"
            await aws_call(self._blobs.put, ref, body.encode())
            item[BODY_REF] = {"S": ref}
        else:
            item[BODY] = {"S": body}
        try:
            await aws_call(
                self._client.put_item,
                TableName=self._table,
                Item=item,
                ConditionExpression="attribute_not_exists(#pk)",
                ExpressionAttributeNames={"#pk": TABLE.partition_key},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except KeyTakenError as taken:
            # botocore resends a put whose answer was lost (timeout, 5xx); if the first send
            # landed, the retry finds our own item: the append succeeded.
            if taken.existing is not None and taken.existing.get(WRITE_ID) == item[WRITE_ID]:
                return
            # Only a lost condition proves the item was not written; after any other error
            # the put may have landed, and deleting its body would break the stored commit.
            if ref is not None:
                with contextlib.suppress(StoreUnavailableError):
                    await aws_call(self._blobs.delete, ref)
            raise ConcurrentUpdateError(f"seq {commit.first_seq} of {commit.task_id} is taken") from None

    async def head(self, task_id: str) -> Commit | None:
        items = await self._events(task_id, 1, MAX_SEQ, forward=False, limit=1)
        return (await self._decode(items))[0] if items else None

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        if after_seq <= 0:
            return await self._decode(await self._events(task_id, 1, MAX_SEQ))
        # The commit holding seq after_seq + 1 may start at or before after_seq.
        earlier, later = await asyncio.gather(
            self._events(task_id, 1, after_seq, forward=False, limit=1),
            self._events(task_id, after_seq + 1, MAX_SEQ),
        )
        straddling = [item for item in earlier if int(item[LAST_SEQ]["N"]) > after_seq]
        return await self._decode(straddling + later)

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

    def _item(self, commit: Commit) -> Item:
        item: Item = {
            TABLE.partition_key: {"S": task_key(commit.task_id)},
            TABLE.sort_key: {"S": event_key(commit.first_seq)},
            TASK_ID: {"S": commit.task_id},
            FIRST_SEQ: {"N": str(commit.first_seq)},
            LAST_SEQ: {"N": str(commit.last_seq)},
            STATE: {"S": commit.state.value},
            WRITE_ID: {"S": secrets.token_urlsafe(12)},
            TABLE.ttl_attribute: {"N": str(self._expires_at(commit))},
        }
        if commit.first_seq == 1:
            item[TABLE.owner_key] = {"S": index_owner(commit.owner or ANONYMOUS_OWNER)}
            item[TABLE.owner_sort_key] = {"N": f"{commit.created_at:.6f}"}
            item[TABLE.context_attribute] = {"S": commit.context_id}
        return item

    def _expires_at(self, commit: Commit) -> int:
        """Every item of a task expires ``retention`` after the task was created, together: a task
        is never left with its newest commits and without its first. (Commits written before
        tasks carried their creation time expire ``retention`` after they were written.)"""
        started = commit.started_at
        return int(started if started is not None else self._clock()) + self._retention

    async def _events(
        self, task_id: str, low: int, high: int, *, forward: bool = True, limit: int | None = None
    ) -> list[Item]:
        # BETWEEN on commit keys, never an open range: the task's PUSH# items share its partition.
        # TTL deletes items up to a few days after they expire: until then they are filtered out
        # (all of a task's items expire together, so an expired task reads as no task at all).
        return await query_all(
            self._client,
            limit,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk AND #sk BETWEEN :low AND :high",
            FilterExpression="#ttl > :now",
            ExpressionAttributeNames={
                "#pk": TABLE.partition_key,
                "#sk": TABLE.sort_key,
                "#ttl": TABLE.ttl_attribute,
            },
            ExpressionAttributeValues={
                ":pk": {"S": task_key(task_id)},
                ":low": {"S": event_key(low)},
                ":high": {"S": event_key(high)},
                ":now": {"N": str(int(self._clock()))},
            },
            ScanIndexForward=forward,
            ConsistentRead=True,
        )

    async def _decode(self, items: list[Item]) -> list[Commit]:
        slots = asyncio.Semaphore(_PARALLEL_FETCHES)

        async def fetch(key: str) -> bytes:
            async with slots:
                return await aws_call(self._blobs.get, key)

        refs = [item[BODY_REF]["S"] for item in items if BODY not in item]
        fetched = dict(zip(refs, await asyncio.gather(*map(fetch, refs)), strict=True))
        return [
            Commit.model_validate_json(item[BODY]["S"] if BODY in item else fetched[item[BODY_REF]["S"]])
            for item in items
        ]


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
