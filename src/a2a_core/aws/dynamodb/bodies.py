"""Where a commit item's body and snapshot live: in the item, or in S3 past the threshold.

A body larger than ``threshold`` bytes goes to S3 (``body_ref``); a snapshot goes to S3
(``snapshot_ref``) when it and the body together would pass the threshold, so no item ever
nears DynamoDB's 400 KB limit. Each S3 key is fresh per attempt: racing writers of one sequence
number never overwrite each other's objects, so the winner's item always points at its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from a2a_core.aws.dynamodb.keys import BODY, BODY_REF, LEASE_UNTIL, SNAPSHOT, SNAPSHOT_REF
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import LogEntry

if TYPE_CHECKING:
    from a2a_core.aws.blobs import S3Blobs

# S3 bodies fetched at once by one read; botocore's connection pool holds 10 connections.
_PARALLEL_FETCHES = 8

Item = dict[str, Any]


class ItemBodies:
    def __init__(self, blobs: S3Blobs, threshold: int, *, call: Callable[..., Awaitable[Any]]) -> None:
        """``call`` runs a blocking AWS call and maps its errors (the store's ``aws_call``)."""
        self._blobs = blobs
        self._threshold = threshold
        self._call = call

    async def place_body(self, item: Item, commit: Commit, body: bytes) -> list[str]:
        """Put ``body`` in ``item`` (or in S3, its key in the item); the S3 keys written."""
        if len(body) <= self._threshold:
            item[BODY] = {"S": body.decode()}
            return []
        ref = await self._offload(commit, "", body)
        item[BODY_REF] = {"S": ref}
        return [ref]

    async def place_snapshot(self, item: Item, commit: Commit, body_size: int, snapshot: bytes) -> list[str]:
        """Put ``snapshot`` in ``item`` beside a body of ``body_size`` bytes (or in S3)."""
        if body_size + len(snapshot) <= self._threshold:
            item[SNAPSHOT] = {"S": snapshot.decode()}
            return []
        ref = await self._offload(commit, "-snapshot", snapshot)
        item[SNAPSHOT_REF] = {"S": ref}
        return [ref]

    async def discard(self, refs: list[str]) -> None:
        """Delete objects of an item that was not written; best effort (lifecycle expires them)."""
        for ref in refs:
            with contextlib.suppress(StoreUnavailableError):
                await self._call(self._blobs.delete, ref)

    async def decode(self, items: list[Item], *, snapshots: bool) -> list[LogEntry]:
        """The entries ``items`` hold, fetching offloaded bodies (and snapshots, if asked for).

        A snapshot whose object is gone reads as empty bytes: it is derived data, and the reader
        rebuilds it; a commit body that is gone is an error.
        """
        slots = asyncio.Semaphore(_PARALLEL_FETCHES)

        async def fetch(key: str, *, missing_ok: bool) -> bytes:
            async with slots:
                data: bytes = await self._call(self._blobs.get, key, missing_ok=missing_ok)
                return data

        refs = [item[BODY_REF]["S"] for item in items if BODY not in item]
        snapshot_refs = [item[SNAPSHOT_REF]["S"] for item in items if snapshots and SNAPSHOT_REF in item]
        fetched = await asyncio.gather(
            *(fetch(ref, missing_ok=False) for ref in refs),
            *(fetch(ref, missing_ok=True) for ref in snapshot_refs),
        )
        by_key = dict(zip([*refs, *snapshot_refs], fetched, strict=True))
        return [
            LogEntry(
                item[BODY]["S"] if BODY in item else by_key[item[BODY_REF]["S"]],
                _snapshot(item, by_key) if snapshots else None,
                float(item[LEASE_UNTIL]["N"]) if LEASE_UNTIL in item else None,
            )
            for item in items
        ]

    async def _offload(self, commit: Commit, kind: str, data: bytes) -> str:
        ref = f"tasks/{commit.task_id}/{commit.first_seq:010d}{kind}-{uuid.uuid4()}.json"
        await self._call(self._blobs.put, ref, data)
        return ref


def _snapshot(item: Item, fetched: dict[str, bytes]) -> bytes | None:
    if SNAPSHOT in item:
        return str(item[SNAPSHOT]["S"]).encode()
    if SNAPSHOT_REF in item:
        return fetched[item[SNAPSHOT_REF]["S"]]
    return None
