"""`ContextStore` on DynamoDB: a head item per context, plus immutable chunks for large values.

Items live in their own partition, ``CTX#<context_id>``, beside (never inside) the task logs:

- the head, sort key ``HEAD``: ``version``, ``write_id``, the TTL attribute, and either ``body``
  (the JSON, when it fits in ``chunk_bytes``) or ``chunks`` (how many chunk items hold it); the
  write ids of recent versions, version ``v``'s in ``w<v % RECENT_WRITES>``, and the write that
  created the head in ``created_by`` (at ``created_version``);
- chunks, sort key ``CHUNK#<write_id>#<index:05d>``: ``data``, a binary slice of the JSON, and
  the same TTL as their head.

An update writes its chunks first under a fresh ``write_id``, then the head, with one conditional
`UpdateItem` on the version it was decided on: that write is the single point where racing
writers are ordered, so exactly one wins, and a reader never sees a head whose chunks are not all
stored. Chunks are never rewritten, so a reader that fetched a head can always fetch its chunks.
Chunks of a replaced or losing write are left to TTL: the worker role may only put, update and
read items, and a TTL delete costs nothing where a delete costs as much as the write it undoes.

A write the client sends again after its answer was lost fails its version condition once
another writer moved the version; the head it gets back still names it among the recent write
ids, so it counts as landed rather than as a conflict (whose caller would apply it again).

A head past its TTL counts as gone even before DynamoDB's sweeper removes it (which may take
days): it reads as None and may be created again, at a higher version than it ever had.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import JsonValue

from a2a_core.aws.calls import Item, aws_call
from a2a_core.aws.dynamodb.recent_writes import VERSION, versioned_update
from a2a_core.aws.resources import TABLE
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.turn.context_store import (
    Context,
    ContextConflictError,
    ContextStore,
    dump_value,
    load_value,
    new_write_id,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

WRITE_ID = "write_id"
BODY = "body"
CHUNKS = "chunks"
DATA = "data"

_NAMES = {
    "#write_id": WRITE_ID,
    "#body": BODY,
    "#chunks": CHUNKS,
}
_CONTEXT_PREFIX = "CTX#"
_HEAD = "HEAD"
_CHUNK_PREFIX = "CHUNK#"
# Items stop at 400 KB including keys and attribute names; leave room for a long context id.
MAX_CHUNK_BYTES = 380_000
# Chunk writes and reads at once; the clients' connection pools hold 10 connections.
_PARALLEL_CALLS = 8

logger = logging.getLogger(__name__)


def context_key(context_id: str) -> str:
    return f"{_CONTEXT_PREFIX}{context_id}"


class DynamoDBContextStore(ContextStore):
    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        *,
        retention_seconds: int,
        chunk_bytes: int = 300_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not 0 < chunk_bytes <= MAX_CHUNK_BYTES:
            raise ValueError(f"chunk_bytes must be between 1 and {MAX_CHUNK_BYTES}")
        self._client = client
        self._table = table_name
        self._retention = retention_seconds
        self._chunk_bytes = chunk_bytes
        self._clock = clock

    async def load_context(self, context_id: str) -> Context | None:
        response = await aws_call(
            self._client.get_item,
            TableName=self._table,
            Key=self._key(context_id, _HEAD),
            ConsistentRead=True,
        )
        head = response.get("Item")
        if head is None or self._expired(head):
            return None
        version = int(head[VERSION]["N"])
        if BODY in head:
            return Context(context_id, load_value(head[BODY]["S"]), version)
        data = await self._read_chunks(context_id, head[WRITE_ID]["S"], int(head[CHUNKS]["N"]))
        return Context(context_id, load_value(data), version)

    async def update_context(
        self, context_id: str, value: JsonValue, *, expected_version: int, write_id: str | None = None
    ) -> int:
        data = dump_value(value)
        write_id = write_id or new_write_id()
        expires_at = {"N": str(int(self._clock()) + self._retention)}
        values: Item = {}
        if len(data) <= self._chunk_bytes:
            stored, dropped = "#body = :body", "#chunks"
            values[":body"] = {"S": data.decode()}
        else:
            slices = [data[i : i + self._chunk_bytes] for i in range(0, len(data), self._chunk_bytes)]
            await self._write_chunks(context_id, write_id, slices, expires_at)
            stored, dropped = "#chunks = :chunks", "#body"
            values[":chunks"] = {"N": str(len(slices))}
        version = await versioned_update(
            self._client,
            table=self._table,
            key=self._key(context_id, _HEAD),
            expected_version=expected_version,
            write_id=write_id,
            now=int(self._clock()),
            expires_at=expires_at,
            assignments=f"#write_id = :write_id, {stored} REMOVE {dropped}",
            names=_NAMES,
            values=values,
        )
        if version is None:
            raise ContextConflictError(f"context {context_id} moved past version {expected_version}")
        return version

    def _expired(self, item: Item) -> bool:
        return int(item[TABLE.ttl_attribute]["N"]) < int(self._clock())

    async def _write_chunks(
        self, context_id: str, write_id: str, slices: list[bytes], expires_at: dict[str, str]
    ) -> None:
        slots = asyncio.Semaphore(_PARALLEL_CALLS)

        async def put(index: int, data: bytes) -> None:
            item = {
                **self._key(context_id, _chunk_key(write_id, index)),
                DATA: {"B": data},
                TABLE.ttl_attribute: expires_at,
            }
            async with slots:
                await aws_call(self._client.put_item, TableName=self._table, Item=item)

        await asyncio.gather(*(put(index, data) for index, data in enumerate(slices)))

    async def _read_chunks(self, context_id: str, write_id: str, count: int) -> bytes:
        slots = asyncio.Semaphore(_PARALLEL_CALLS)

        async def get(index: int) -> Item | None:
            async with slots:
                response = await aws_call(
                    self._client.get_item,
                    TableName=self._table,
                    Key=self._key(context_id, _chunk_key(write_id, index)),
                    ConsistentRead=True,
                )
            return response.get("Item")

        items = await asyncio.gather(*(get(index) for index in range(count)))
        if any(item is None for item in items):
            # Chunks are written before their head and never changed: only a deleted item gets here.
            logger.error("context %s: a chunk of write %s is missing", context_id, write_id)
            raise StoreUnavailableError()
        return b"".join(item[DATA]["B"] for item in items if item is not None)

    @staticmethod
    def _key(context_id: str, sort_key: str) -> Item:
        return {
            TABLE.partition_key: {"S": context_key(context_id)},
            TABLE.sort_key: {"S": sort_key},
        }


def _chunk_key(write_id: str, index: int) -> str:
    return f"{_CHUNK_PREFIX}{write_id}#{index:05d}"
