"""BatchGetItem to the end: keys in batches of 100, unprocessed keys asked for again.

DynamoDB may answer part of a batch (throttling, the 16 MB response limit) and return the rest as
``UnprocessedKeys``; they are retried with a short backoff until none are left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

Item = dict[str, Any]
# The most keys one BatchGetItem takes.
BATCH_KEYS = 100
_BACKOFF = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


async def batch_get(
    client: DynamoDBClient,
    table: str,
    keys: list[Item],
    *,
    call: Callable[..., Awaitable[Any]],
) -> list[Item]:
    """Every item of ``keys`` that exists (strongly consistent), in no particular order.

    ``call`` runs an AWS call and maps its errors (the store's ``aws_call``).
    """
    batches = [keys[start : start + BATCH_KEYS] for start in range(0, len(keys), BATCH_KEYS)]
    found = await asyncio.gather(*(_one_batch(client, table, batch, call) for batch in batches))
    return [item for items in found for item in items]


async def _one_batch(
    client: DynamoDBClient, table: str, keys: list[Item], call: Callable[..., Awaitable[Any]]
) -> list[Item]:
    items: list[Item] = []
    pending: dict[str, Any] = {table: {"Keys": keys, "ConsistentRead": True}}
    attempt = 0
    while pending:
        answer = await call(client.batch_get_item, RequestItems=pending)
        items.extend(answer.get("Responses", {}).get(table, []))
        pending = answer.get("UnprocessedKeys") or {}
        if pending:
            await asyncio.sleep(_BACKOFF[min(attempt, len(_BACKOFF) - 1)])
            attempt += 1
    return items
