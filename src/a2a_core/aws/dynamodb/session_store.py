"""`SessionStore` on DynamoDB: one item per record and per log entry, large values in S3.

Items live in the session's own partition, ``SES#<session>``, beside the task logs:

- a record, sort key ``REC#<name>``: ``version``, the write ids of its recent versions (version
  ``v``'s in ``w<v % RECENT_WRITES>``, the creating write's in ``created_by`` at
  ``created_version``), the TTL attribute and ``body`` (the JSON) or ``body_ref`` (an S3 key);
- an entry, sort key ``LOG#<seq:012d>``: ``write_id``, the TTL attribute and ``body`` or
  ``body_ref``. Written once with a condition that the number is free, so an append costs the
  entry's own size, and a reader queries a window of numbers.

A write the client sends again after its answer was lost fails its condition; the item it gets
back names the write (the entry's ``write_id``, the record's recent ids), so it counts as
stored instead of as a conflict. A value over ``offload_bytes`` goes to S3 first, under a key of
its own write, and the item points at it: a reader never sees a pointer to a missing object.
Items past their TTL read as gone even before DynamoDB's sweeper removes them.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import JsonValue

from a2a_core.aws.calls import Item, KeyTakenError, aws_call, query_all
from a2a_core.aws.dynamodb.recent_writes import VERSION, versioned_update
from a2a_core.aws.resources import TABLE
from a2a_core.core.turn.context_store import dump_value, load_value, new_write_id
from a2a_core.core.turn.session_store import (
    Entry,
    EntryTakenError,
    Record,
    RecordConflictError,
    SessionStore,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from a2a_core.aws.blobs import S3Blobs

WRITE_ID = "write_id"
BODY = "body"
BODY_REF = "body_ref"

_SESSION_PREFIX = "SES#"
# The bucket's objects of sessions: under `a2a_core.cdk.storage.LARGE_BODY_PREFIX` ("tasks/").
BODY_PREFIX = "tasks/sessions/"
_RECORD_PREFIX = "REC#"
_ENTRY_PREFIX = "LOG#"
_LAST_ENTRY = f"{_ENTRY_PREFIX}{10**12 - 1:012d}"
# Items stop at 400 KB including keys and attribute names; leave room for long session keys.
MAX_INLINE_BYTES = 380_000


def session_key(session: str) -> str:
    """The partition key of a session's items."""
    return f"{_SESSION_PREFIX}{session}"


def entry_key(seq: int) -> str:
    """The sort key of a log entry: zero-padded, so keys sort as numbers do."""
    return f"{_ENTRY_PREFIX}{seq:012d}"


class DynamoDBSessionStore(SessionStore):
    """Sessions on the kit's table (and its bucket, for values over ``offload_bytes``)."""

    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        *,
        retention_seconds: int,
        blobs: S3Blobs | None = None,
        offload_bytes: int = 300_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not 0 <= offload_bytes <= MAX_INLINE_BYTES:
            raise ValueError(f"offload_bytes must be between 0 and {MAX_INLINE_BYTES}")
        self._client = client
        self._table = table_name
        self._retention = retention_seconds
        self._blobs = blobs
        self._offload = offload_bytes
        self._clock = clock

    # --- records -----------------------------------------------------------------------------

    async def load_record(self, session: str, name: str) -> Record | None:
        response = await aws_call(
            self._client.get_item,
            TableName=self._table,
            Key=self._key(session, _RECORD_PREFIX + name),
            ConsistentRead=True,
        )
        item = response.get("Item")
        if item is None or self._expired(item):
            return None
        return Record(name, await self._body(item), int(item[VERSION]["N"]))

    async def save_record(
        self, session: str, name: str, value: JsonValue, *, expected_version: int, write_id: str | None = None
    ) -> int:
        write_id = write_id or new_write_id()
        sort_key = _RECORD_PREFIX + name
        body, values = await self._stored_body(session, sort_key, dump_value(value), write_id)
        version = await versioned_update(
            self._client,
            table=self._table,
            key=self._key(session, sort_key),
            expected_version=expected_version,
            write_id=write_id,
            now=self._now(),
            expires_at=self._expiry(),
            assignments=body,
            names={"#body": BODY, "#ref": BODY_REF},
            values=values,
        )
        if version is None:
            raise RecordConflictError(f"record {name} of {session} moved past version {expected_version}")
        return version

    async def list_records(self, session: str, prefix: str, *, limit: int = 1000) -> list[Record]:
        items = await query_all(
            self._client,
            limit=None,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :prefix)",
            ExpressionAttributeNames={"#pk": TABLE.partition_key, "#sk": TABLE.sort_key},
            ExpressionAttributeValues={
                ":pk": {"S": session_key(session)},
                ":prefix": {"S": _RECORD_PREFIX + prefix},
            },
            ConsistentRead=True,
        )
        live = [item for item in items if not self._expired(item)][:limit]
        return [
            Record(
                item[TABLE.sort_key]["S"].removeprefix(_RECORD_PREFIX),
                await self._body(item),
                int(item[VERSION]["N"]),
            )
            for item in live
        ]

    # --- the log -----------------------------------------------------------------------------

    async def put_entry(
        self, session: str, seq: int, value: JsonValue, *, write_id: str | None = None
    ) -> None:
        if seq < 1:
            raise ValueError(f"entries are numbered from 1, not {seq}")
        write_id = write_id or new_write_id()
        sort_key = entry_key(seq)
        item: Item = {
            **self._key(session, sort_key),
            WRITE_ID: {"S": write_id},
            TABLE.ttl_attribute: self._expiry(),
        }
        item.update(await self._body_attributes(session, sort_key, dump_value(value), write_id))
        try:
            await aws_call(
                self._client.put_item,
                TableName=self._table,
                Item=item,
                ConditionExpression="attribute_not_exists(#pk) OR #ttl < :now",
                ExpressionAttributeNames={"#pk": TABLE.partition_key, "#ttl": TABLE.ttl_attribute},
                ExpressionAttributeValues={":now": {"N": str(self._now())}},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except KeyTakenError as taken:
            # The client resends a put whose answer was lost: finding our own write means it landed.
            if (taken.existing or {}).get(WRITE_ID) == {"S": write_id}:
                return
            raise EntryTakenError(f"entry {seq} of {session} is taken") from None

    async def replace_entry(self, session: str, seq: int, value: JsonValue) -> None:
        sort_key = entry_key(seq)
        body, values = await self._stored_body(session, sort_key, dump_value(value), new_write_id())
        values[":now"] = {"N": str(self._now())}
        try:
            await aws_call(
                self._client.update_item,
                TableName=self._table,
                Key=self._key(session, sort_key),
                UpdateExpression=f"SET {body}",
                ConditionExpression="attribute_exists(#pk) AND #ttl >= :now",
                ExpressionAttributeNames={
                    "#pk": TABLE.partition_key,
                    "#ttl": TABLE.ttl_attribute,
                    "#body": BODY,
                    "#ref": BODY_REF,
                },
                ExpressionAttributeValues=values,
            )
        except KeyTakenError:
            raise LookupError(f"session {session} has no entry {seq}") from None

    async def read_entries(
        self, session: str, *, after: int = 0, limit: int | None = None, newest: bool = False
    ) -> list[Entry]:
        if limit == 0:
            return []
        items = await query_all(
            self._client,
            limit=limit,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk AND #sk BETWEEN :first AND :last",
            ExpressionAttributeNames={"#pk": TABLE.partition_key, "#sk": TABLE.sort_key},
            ExpressionAttributeValues={
                ":pk": {"S": session_key(session)},
                ":first": {"S": entry_key(after + 1)},
                ":last": {"S": _LAST_ENTRY},
            },
            ScanIndexForward=not newest,
            ConsistentRead=True,
        )
        entries = [
            Entry(int(item[TABLE.sort_key]["S"].removeprefix(_ENTRY_PREFIX)), await self._body(item))
            for item in items
            if not self._expired(item)
        ]
        return sorted(entries, key=lambda entry: entry.seq)

    # --- bodies ------------------------------------------------------------------------------

    async def _body_attributes(self, session: str, sort_key: str, data: bytes, write_id: str) -> Item:
        if len(data) <= self._offload:
            return {BODY: {"S": data.decode()}}
        if self._blobs is None:
            raise ValueError(f"a session value of {len(data)} bytes needs a bucket: over {self._offload}")
        # Under its own write's key: a resend writes the same object, a replaced one stays whole.
        # Under the task bodies' prefix: the functions' grant and the bucket's expiry cover it.
        key = f"{BODY_PREFIX}{hashlib.sha256(session.encode()).hexdigest()}/{sort_key}/{write_id}"
        await aws_call(self._blobs.put, key, data)
        return {BODY_REF: {"S": key}}

    async def _stored_body(self, session: str, sort_key: str, data: bytes, write_id: str) -> tuple[str, Item]:
        """The update expression's clause storing ``data``, and its values."""
        attributes = await self._body_attributes(session, sort_key, data, write_id)
        if BODY in attributes:
            return "#body = :body REMOVE #ref", {":body": attributes[BODY]}
        return "#ref = :ref REMOVE #body", {":ref": attributes[BODY_REF]}

    async def _body(self, item: Item) -> JsonValue:
        if BODY in item:
            return load_value(item[BODY]["S"])
        if self._blobs is None:
            raise ValueError("this session value is in S3, and the store was given no bucket")
        return load_value(await aws_call(self._blobs.get, item[BODY_REF]["S"]))

    def _key(self, session: str, sort_key: str) -> Item:
        return {TABLE.partition_key: {"S": session_key(session)}, TABLE.sort_key: {"S": sort_key}}

    def _now(self) -> int:
        return int(self._clock())

    def _expiry(self) -> dict[str, str]:
        return {"N": str(self._now() + self._retention)}

    def _expired(self, item: Item) -> bool:
        return int(item[TABLE.ttl_attribute]["N"]) < self._now()
