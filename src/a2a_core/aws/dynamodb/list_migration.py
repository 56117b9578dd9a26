"""Bring the tasks a previous version wrote into the listing indexes ListTasks reads now.

Before tasks were listed by class, a task's first commit carried the owner index's keys under its
owner, and no commit carried the listing index's. Such a task (or one a previous version's worker
went on writing during a deploy) is not listed until this runs: it puts the listing entry on the
task's newest commit, removes any other, and keys the first commit by its context. It reads the
table once and writes only the tasks that need it, so it is safe to run again (and after every
deploy that crossed this change). Run it once the new version is deployed:

    python -m a2a_core.aws.dynamodb.list_migration --table TABLE [--region REGION] [--bucket BUCKET]

(``a2a-serverless dev`` runs it on the state it restores.)
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from a2a_core.aws.calls import Item, aws_call
from a2a_core.aws.dynamodb.keys import (
    EVENT_PREFIX,
    TASK_PREFIX,
    context_key,
    event_key,
    index_owner,
    task_key,
)
from a2a_core.aws.resources import TABLE
from a2a_core.core.tasklog.list_keys import sort_value
from a2a_core.core.tasklog.records import ANONYMOUS_OWNER

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from a2a_core.core.tasklog.store import TaskStore

_CONTEXT_PREFIX = "context:"


async def migrate(client: DynamoDBClient, table: str, store: TaskStore) -> int:
    """List every task of ``table`` that is not (``store`` reads their heads); how many were."""
    items = await asyncio.to_thread(_commit_items, client, table)
    by_task: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_task[item[TABLE.partition_key]["S"].removeprefix(TASK_PREFIX)].append(item)
    migrated = 0
    for task_id, task_items in by_task.items():
        if _listed_on_head(task_items):
            continue  # this version's, or migrated before
        head = await store.head(task_id)
        if head is None or head.listing is not None:
            continue  # gone (expired), or written by this version: listed already
        writes = [
            _listed(task_id, head.first_seq, index_owner(head.owner or ANONYMOUS_OWNER), sort_value(head))
        ]
        for item in task_items:
            seq = int(item[TABLE.sort_key]["S"].removeprefix(EVENT_PREFIX))
            if seq != head.first_seq and TABLE.list_key in item:
                writes.append(_unlisted(task_id, seq))
            owner = item.get(TABLE.owner_key, {}).get("S")
            if seq == 1 and owner is not None and not owner.startswith(_CONTEXT_PREFIX):
                writes.append(_by_context(task_id, context_key(owner, item[TABLE.context_attribute]["S"])))
        for update in writes:
            await aws_call(client.update_item, TableName=table, **update)
        migrated += 1
    return migrated


def _listed_on_head(items: list[Item]) -> bool:
    """Whether a task's items show it listed as this module lists it: the entry on its newest
    commit only, the first keyed by its context."""
    by_seq = {int(item[TABLE.sort_key]["S"].removeprefix(EVENT_PREFIX)): item for item in items}
    first, head = by_seq.get(1, {}), max(by_seq)
    listed = [seq for seq, item in by_seq.items() if TABLE.list_key in item]
    owner = first.get(TABLE.owner_key, {}).get("S", _CONTEXT_PREFIX)
    return listed == [head] and owner.startswith(_CONTEXT_PREFIX)


def _commit_items(client: DynamoDBClient, table: str) -> list[Item]:
    names = {
        "#pk": TABLE.partition_key,
        "#sk": TABLE.sort_key,
        "#owner": TABLE.owner_key,
        "#ctx": TABLE.context_attribute,
        "#lo": TABLE.list_key,
    }
    pages = client.get_paginator("scan").paginate(
        TableName=table,
        ProjectionExpression="#pk, #sk, #owner, #ctx, #lo",
        FilterExpression="begins_with(#sk, :evt)",
        ExpressionAttributeNames=names,
        ExpressionAttributeValues={":evt": {"S": EVENT_PREFIX}},
    )
    return [item for page in pages for item in page["Items"]]


def _key(task_id: str, seq: int) -> dict[str, Any]:
    return {
        "Key": {TABLE.partition_key: {"S": task_key(task_id)}, TABLE.sort_key: {"S": event_key(seq)}},
        "ConditionExpression": "attribute_exists(#pk)",
    }


def _listed(task_id: str, seq: int, owner: str, at: float) -> dict[str, Any]:
    return {
        **_key(task_id, seq),
        "UpdateExpression": "SET #lo = :lo, #la = :la",
        "ExpressionAttributeNames": {
            "#pk": TABLE.partition_key,
            "#lo": TABLE.list_key,
            "#la": TABLE.list_sort_key,
        },
        "ExpressionAttributeValues": {":lo": {"S": owner}, ":la": {"N": f"{at:.3f}"}},
    }


def _unlisted(task_id: str, seq: int) -> dict[str, Any]:
    return {
        **_key(task_id, seq),
        "UpdateExpression": "REMOVE #lo, #la",
        "ExpressionAttributeNames": {
            "#pk": TABLE.partition_key,
            "#lo": TABLE.list_key,
            "#la": TABLE.list_sort_key,
        },
    }


def _by_context(task_id: str, key: str) -> dict[str, Any]:
    return {
        **_key(task_id, 1),
        "UpdateExpression": "SET #owner = :key",
        "ExpressionAttributeNames": {"#pk": TABLE.partition_key, "#owner": TABLE.owner_key},
        "ExpressionAttributeValues": {":key": {"S": key}},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--table", required=True, help="the task table (the stack's TableName output)")
    parser.add_argument("--bucket", default="", help="the large-body bucket, if commits were offloaded to it")
    parser.add_argument("--region", default=None)
    args = parser.parse_args()
    region = args.region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if not region:
        parser.error("name the table's region: --region, or AWS_REGION")

    from a2a_core.aws.blobs import S3Blobs
    from a2a_core.aws.clients import build_clients
    from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore

    clients = build_clients(region)
    store = DynamoDBTaskStore(
        clients.dynamodb,
        args.table,
        blobs=S3Blobs(lambda: clients.s3, args.bucket),
        retention_seconds=0,  # it only reads
    )
    count = asyncio.run(migrate(clients.dynamodb, args.table, store))
    print(f"{count} task(s) brought into the listing indexes of {args.table}")


if __name__ == "__main__":
    main()
