"""A journal of the writes `a2a-serverless dev` makes to its emulated DynamoDB and S3.

moto keeps everything in memory. Each write call that succeeded on dev's own clients is appended
to the journal (one JSON line) before the call returns to its caller, so a write that was
acknowledged survives the process being killed. The next start replays the journal into a fresh
emulator, then rewrites it as one put per item and object that still exists (compaction), so it
grows with what is stored, not with how often it changed.

Journaled writes are serialized: the journal's order is the order the emulator applied them, and
replaying it (conditions included, which held then and hold again on the same state) rebuilds
the same items. SQS is not journaled: `a2a_core.emulator.recovery` rebuilds the run queue from the
table. The file is written, not fsynced: it survives SIGKILL and crashes, not a power cut.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botocore import xform_name
from botocore.exceptions import BotoCoreError, ClientError

from a2a_core.aws.clients import LazyClient
from a2a_core.aws.dynamodb.keys import TASK_PREFIX
from a2a_core.aws.resources import TABLE

logger = logging.getLogger(__name__)

WRITES: Mapping[str, frozenset[str]] = {
    "dynamodb": frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}),
    "s3": frozenset({"PutObject", "DeleteObject", "DeleteObjects"}),
}
_BYTES = "__bytes__"


@dataclass(frozen=True)
class Restored:
    """What a start found in the journal."""

    replayed: int  # journal entries applied
    failed: int  # entries the emulator refused on replay (logged)
    items: int  # table items kept by compaction
    objects: int  # bucket objects kept by compaction
    tasks: int  # distinct tasks among the items


class WriteJournal:
    """Appends to ``path`` the successful writes of the clients it is attached to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._lock = threading.Lock()

    def attach(self, client: Any) -> Any:
        """Journal ``client``'s write calls from now on; returns the client."""
        if isinstance(client, LazyClient):  # patch the client it stands in for, built now
            client = client.client
        service = client.meta.service_model.service_name
        writes = WRITES[service]
        call: Callable[[str, dict[str, Any]], Any] = client._make_api_call

        # Every generated client method goes through _make_api_call(operation, params): wrapping
        # it sees each call whole, so the lock is released however the call ends.
        def journaled(operation: str, params: dict[str, Any]) -> Any:
            if operation not in writes:
                return call(operation, params)
            line = _line(service, operation, params)  # before the call: an entry we cannot write
            with self._lock:  # is a write we do not make
                if self._fd < 0:
                    raise RuntimeError(f"the journal {self.path} is closed: dev is stopping")
                result = call(operation, params)
                os.write(self._fd, line)
            return result

        client._make_api_call = journaled
        return client

    def close(self) -> None:
        """Stop journaling; a write attempted afterwards is refused, not made unrecorded."""
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def restore(path: Path, *, dynamodb: Any, s3: Any, table: str, bucket: str, now: float) -> Restored:
    """Replay ``path`` into the (fresh) emulator behind the clients, then compact it to what the
    table and bucket hold. Items past their TTL are dropped, as DynamoDB's sweep would."""
    clients = {"dynamodb": dynamodb, "s3": s3}
    replayed = failed = 0
    for service, operation, params in read(path):
        try:
            getattr(clients[service], xform_name(operation))(**params)
            replayed += 1
        except (ClientError, BotoCoreError, KeyError, TypeError) as error:
            failed += 1
            logger.warning("journal entry %s %s not restored: %s", service, operation, error)
    items = list(_scan(dynamodb, table, now))
    objects = list(_objects(s3, bucket))
    _rewrite(path, [*items, *objects])
    keys = {params["Item"][TABLE.partition_key]["S"] for _, _, params in items}
    tasks = sum(1 for key in keys if key.startswith(TASK_PREFIX))
    return Restored(replayed, failed, len(items), len(objects), tasks)


def read(path: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The entries of ``path`` in order; a torn last line (the process died writing it: its call
    had not returned) is skipped."""
    if not path.exists():
        return
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            try:
                entry = json.loads(line, object_hook=_decode)
            except ValueError:
                logger.warning("journal %s: line %d is incomplete and was skipped", path, number)
                continue
            yield entry["service"], entry["operation"], entry["params"]


def _scan(dynamodb: Any, table: str, now: float) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for page in dynamodb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
        for item in page["Items"]:
            expires = item.get(TABLE.ttl_attribute, {}).get("N")
            if expires is not None and float(expires) < now:
                continue
            yield "dynamodb", "PutItem", {"TableName": table, "Item": item}


def _objects(s3: Any, bucket: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for summary in page.get("Contents", []):
            body = s3.get_object(Bucket=bucket, Key=summary["Key"])
            params = {"Bucket": bucket, "Key": summary["Key"], "Body": body["Body"].read()}
            if body.get("ContentType"):
                params["ContentType"] = body["ContentType"]
            yield "s3", "PutObject", params


def _rewrite(path: Path, entries: list[tuple[str, str, dict[str, Any]]]) -> None:
    """Replace ``path`` with ``entries`` atomically: a crash leaves the old journal or the new."""
    temporary = path.with_name(path.name + ".compacting")
    with temporary.open("wb") as out:
        for entry in entries:
            out.write(_line(*entry))
        out.flush()
        os.fsync(out.fileno())
    temporary.chmod(0o600)
    os.replace(temporary, path)


def _line(service: str, operation: str, params: dict[str, Any]) -> bytes:
    entry = {"service": service, "operation": operation, "params": params}
    return (json.dumps(entry, default=_encode, separators=(",", ":")) + "\n").encode()


def _encode(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return {_BYTES: base64.b64encode(value).decode()}
    raise TypeError(f"cannot journal a {type(value).__name__}")


def _decode(value: dict[str, Any]) -> Any:
    if len(value) == 1 and _BYTES in value:
        return base64.b64decode(value[_BYTES])
    return value
