"""`TaskStore` on DynamoDB: one item per commit, each written with one conditional put.

An item is keyed `keys.task_key` / `keys.event_key` (of its first seq) and holds ``task_id``,
``first_seq``, ``last_seq``, ``state``, ``write_id``, the TTL attribute and either ``body`` (the JSON)
or ``body_ref`` (the S3 key of a body larger than ``offload_threshold`` bytes). A commit that
carries a snapshot holds it in the same item, as ``snapshot`` or, when body and snapshot together
would pass the threshold, ``snapshot_ref`` (no item ever nears the 400 KB limit).

Two indexes list tasks (`owner_index` reads them). Only a task's first commit carries the owner
index's attributes (``owner`` the context's key, ``created_at``, ``context_id``), so that index
holds one entry per task and no later commit writes it. The commit that carries the task's
listing entry (`list_keys.carries_entry`) holds the listing index's (``lo``, the owner,
and ``la``, its place; the index projects its ``state``); once it is stored, the commit that carried the
entry before has them removed: one small update when a task's class changes (once for a simple
task, when it ends).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from a2a_core.aws.calls import Item, KeyTakenError, aws_call, query_all
from a2a_core.aws.dynamodb.batches import batch_get
from a2a_core.aws.dynamodb.bodies import ItemBodies
from a2a_core.aws.dynamodb.keys import (
    BODY_REF,
    FIRST_SEQ,
    LAST_SEQ,
    LEASE_UNTIL,
    MAX_SEQ,
    SNAPSHOT,
    SNAPSHOT_REF,
    STATE,
    TASK_ID,
    WRITE_ID,
    context_key,
    event_key,
    index_owner,
    task_key,
)
from a2a_core.aws.dynamodb.owner_index import SCAN_LIMIT, OwnerIndex
from a2a_core.aws.resources import TABLE
from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.tasklog.list_keys import carries_entry, sort_value
from a2a_core.core.tasklog.records import ANONYMOUS_OWNER, Commit
from a2a_core.core.tasklog.store import IndexQuery, LogEntry, OwnedTasks, TaskStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from a2a_core.aws.blobs import S3Blobs
    from a2a_core.aws.dynamodb.push_marks import PushMarks


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
        marks: PushMarks | None = None,
    ) -> None:
        """``scan_limit``: the most owner index entries one `list_owned` call examines; ``marks``
        (with push on): tells the push function's stream filter which commits to let through."""
        self._client = client
        self._marks = marks
        self._owners = OwnerIndex(client, table_name, scan_limit=scan_limit, clock=clock)
        self._table = table_name
        self._bodies = ItemBodies(blobs, offload_threshold, call=aws_call)
        self._retention = retention_seconds
        self._clock = clock

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        # Nulls are defaults: dropping them keeps a typical commit within one 1 KB write unit.
        body = commit.model_dump_json(exclude_none=True).encode()
        item = self._item(commit)
        refs = (
            [] if snapshot is None else await self._bodies.place_snapshot(item, commit, len(body), snapshot)
        )
        refs += await self._bodies.place_body(item, commit, body)
        if self._marks is not None:
            await self._marks.mark(item, commit)
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
            # A put whose answer was lost (a timeout, a 5xx) is sent again, by the client or by our
            # caller appending the same commit (`TaskStore.append`); if an earlier send landed,
            # this one finds our own item: the append succeeded. Bodies this call placed are
            # unused unless the client resent this very item.
            existing = taken.existing or {}
            if existing.get(WRITE_ID) != item[WRITE_ID]:
                # Only a lost condition proves the item was not written; after any other error
                # the put may have landed, and deleting its bodies would break the stored commit.
                await self._bodies.discard(refs)
                raise ConcurrentUpdateError(f"seq {commit.first_seq} of {commit.task_id} is taken") from None
            await self._bodies.discard([ref for ref in refs if not _references(existing, ref)])

    async def unlist(self, task_id: str, seq: int) -> None:
        await self._owners.unlist(task_id, seq)

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

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        high = MAX_SEQ if through is None else through
        items = await self._events(task_id, 1, high, forward=False, limit=limit)
        return await self._bodies.decode(items, snapshots=True)

    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        if first > last:
            return []
        return await self._bodies.decode(await self._events(task_id, first, last), snapshots=snapshots)

    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        keys = [
            {TABLE.partition_key: {"S": task_key(task_id)}, TABLE.sort_key: {"S": event_key(seq)}}
            for seq in sorted(set(first_seqs))
        ]
        items = await batch_get(self._client, self._table, keys, call=aws_call)
        now = int(self._clock())
        live = [item for item in items if int(item[TABLE.ttl_attribute]["N"]) > now]
        return await self._decode(sorted(live, key=lambda item: int(item[FIRST_SEQ]["N"])))

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        placed: Item = {}
        body_size = len(commit.model_dump_json(exclude_none=True).encode())
        refs = await self._bodies.place_snapshot(placed, commit, body_size, snapshot)
        value, stale = (SNAPSHOT_REF, SNAPSHOT) if refs else (SNAPSHOT, SNAPSHOT_REF)
        key = _commit_key(commit)
        try:
            # An update, not a put: only the snapshot changes, and the stream sees a MODIFY, which
            # no consumer of new commits (INSERTs) mistakes for one.
            await aws_call(
                self._client.update_item,
                TableName=self._table,
                Key=key,
                UpdateExpression="SET #value = :value REMOVE #stale",
                ConditionExpression="attribute_exists(#pk)",
                ExpressionAttributeNames={"#value": value, "#stale": stale, "#pk": TABLE.partition_key},
                ExpressionAttributeValues={":value": placed[value]},
            )
        except KeyTakenError:
            await self._bodies.discard(refs)
            return False
        return True

    async def renew_lease(self, commit: Commit, lease_until: float) -> bool:
        key = _commit_key(commit)
        try:
            # In place, as `attach_snapshot`: a MODIFY no consumer of new commits takes for one.
            # The lease only moves later, so a renewal that arrives late changes nothing.
            await aws_call(
                self._client.update_item,
                TableName=self._table,
                Key=key,
                UpdateExpression="SET #lease = :until",
                ConditionExpression="attribute_exists(#pk) AND #write = :write "
                "AND (attribute_not_exists(#lease) OR #lease <= :until)",
                ExpressionAttributeNames={
                    "#lease": LEASE_UNTIL,
                    "#pk": TABLE.partition_key,
                    "#write": WRITE_ID,
                },
                ExpressionAttributeValues={
                    ":until": {"N": f"{lease_until:.3f}"},
                    ":write": {"S": commit.write_id or ""},
                },
            )
        except KeyTakenError:
            return False
        return True

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        return await self._owners.list_owned(owner, query, after=after, limit=limit)

    async def owned(self, task_id: str, owner: str) -> bool:
        # The first commit's owner index key (the owner's and the context's digest) and its
        # context, projected: the same one GetItem, and no body, whether the task is another
        # caller's or does not exist.
        response = await aws_call(
            self._client.get_item,
            TableName=self._table,
            Key={TABLE.partition_key: {"S": task_key(task_id)}, TABLE.sort_key: {"S": event_key(1)}},
            ProjectionExpression="#owner, #context, #ttl",
            ExpressionAttributeNames={
                "#owner": TABLE.owner_key,
                "#context": TABLE.context_attribute,
                "#ttl": TABLE.ttl_attribute,
            },
            ConsistentRead=True,
        )
        item = response.get("Item")
        if item is None or int(item[TABLE.ttl_attribute]["N"]) <= int(self._clock()):
            return False
        stored, context = (
            item.get(TABLE.owner_key, {}).get("S"),
            item.get(TABLE.context_attribute, {}).get("S"),
        )
        if stored is None:
            return False
        # A task a previous version wrote keys its first commit by the owner alone until
        # `list_migration` runs: its owner keeps it meanwhile.
        return stored == index_owner(owner) or (context is not None and stored == context_key(owner, context))

    def _item(self, commit: Commit) -> Item:
        item: Item = {
            TABLE.partition_key: {"S": task_key(commit.task_id)},
            TABLE.sort_key: {"S": event_key(commit.first_seq)},
            TASK_ID: {"S": commit.task_id},
            FIRST_SEQ: {"N": str(commit.first_seq)},
            LAST_SEQ: {"N": str(commit.last_seq)},
            STATE: {"S": commit.state.value},
            WRITE_ID: {"S": commit.write_id or secrets.token_urlsafe(12)},
            TABLE.ttl_attribute: {"N": str(self._expires_at(commit))},
        }
        owner = commit.owner or ANONYMOUS_OWNER
        if commit.first_seq == 1:
            item[TABLE.owner_key] = {"S": context_key(owner, commit.context_id)}
            item[TABLE.owner_sort_key] = {"N": f"{commit.created_at:.6f}"}
            item[TABLE.context_attribute] = {"S": commit.context_id}
        if carries_entry(commit):
            item[TABLE.list_key] = {"S": index_owner(owner)}
            item[TABLE.list_sort_key] = {"N": f"{sort_value(commit):.3f}"}
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
        # BETWEEN on EVT# keys, never an open range: the task's PUSH# items share its partition.
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
        return [entry.commit for entry in await self._bodies.decode(items, snapshots=False)]


def _references(item: Item, ref: str) -> bool:
    return any(item.get(name, {}).get("S") == ref for name in (BODY_REF, SNAPSHOT_REF))


def _commit_key(commit: Commit) -> Item:
    """The key of ``commit``'s item in its task's log."""
    return {
        TABLE.partition_key: {"S": task_key(commit.task_id)},
        TABLE.sort_key: {"S": event_key(commit.first_seq)},
    }
