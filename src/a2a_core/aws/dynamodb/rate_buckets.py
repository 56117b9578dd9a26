"""`RateBuckets` on DynamoDB: one item per caller, one conditional ``UpdateItem`` per take.

An item is keyed ``RATE#<name>`` / ``RATE`` and holds the bucket's ``tat`` (see
`a2a_core.auth.rate_limit`) and a TTL a day past it, so idle buckets disappear. Taking ``k``
tokens is one of two writes, each conditional on the bucket still having them:

- bucket full (``tat`` absent or past): ``SET tat = :now + k/rate`` if ``tat <= :now``;
- bucket partly spent: ``SET tat = tat + k/rate`` if ``:now < tat <= :now + (burst - k)/rate``.

The second is relative, so a bucket other instances have drawn from since this one last saw it
still grants ``k`` when it holds ``k``: no read first. The last state seen picks which write to
try; a write that fails returns the item as it is (``ReturnValuesOnConditionCheckFailure``),
from which the next attempt is decided. A write unit per take (items are ~60 bytes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from a2a_core.auth.rate_limit import Grant, Limit, RateBuckets, take
from a2a_core.aws.calls import Item, KeyTakenError, aws_call
from a2a_core.aws.resources import TABLE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

TAT = "tat"
_PREFIX = "RATE#"
_SORT = "RATE"
_IDLE_TTL = 24 * 3600
# Two writers can each make the other's write miss; a third miss in a row is a heavy race,
# and the request is then refused rather than left waiting.
ATTEMPTS = 3


class DynamoDBRateBuckets(RateBuckets):
    def __init__(
        self, client: DynamoDBClient, table_name: str, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._client = client
        self._table = table_name
        self._clock = clock
        self._seen: dict[str, float | None] = {}  # the last state this instance saw, per bucket

    async def take(self, name: str, wanted: int, limit: Limit) -> Grant:
        tat = self._seen.get(name)
        for _ in range(ATTEMPTS):
            now = self._clock()
            grant = take(tat, now, wanted, limit)
            if grant.tokens < 1:
                self._seen[name] = tat
                return grant
            try:
                self._seen[name] = await self._write(name, grant.tokens, tat, now, limit)
                return replace(grant, tat=self._seen[name])
            except KeyTakenError as lost:
                tat = _tat(lost.existing) if lost.existing is not None else await self._read(name)
        self._seen[name] = tat
        return Grant(0, retry_after=limit.interval, tat=tat)

    async def _write(self, name: str, tokens: int, tat: float | None, now: float, limit: Limit) -> float:
        step = tokens * limit.interval
        full = tat is None or tat <= now
        condition: dict[str, Any] = (
            {
                "UpdateExpression": "SET #tat = :start, #ttl = :ttl",
                "ConditionExpression": "attribute_not_exists(#tat) OR #tat <= :now",
                "ExpressionAttributeValues": {":start": _n(now + step), ":now": _n(now)},
            }
            if full
            else {
                "UpdateExpression": "SET #tat = #tat + :step, #ttl = :ttl",
                "ConditionExpression": "#tat > :now AND #tat <= :last",
                "ExpressionAttributeValues": {
                    ":step": _n(step),
                    ":now": _n(now),
                    ":last": _n(now + limit.burst * limit.interval - step),
                },
            }
        )
        condition["ExpressionAttributeValues"][":ttl"] = {
            "N": str(int(now + limit.burst * limit.interval) + _IDLE_TTL)
        }
        response = await aws_call(
            self._client.update_item,
            TableName=self._table,
            Key=_key(name),
            ExpressionAttributeNames={"#tat": TAT, "#ttl": TABLE.ttl_attribute},
            ReturnValues="UPDATED_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
            **condition,
        )
        return float(response["Attributes"][TAT]["N"])

    async def _read(self, name: str) -> float | None:
        response = await aws_call(
            self._client.get_item, TableName=self._table, Key=_key(name), ConsistentRead=True
        )
        item = response.get("Item")
        return None if item is None else _tat(item)


def _key(name: str) -> Item:
    return {TABLE.partition_key: {"S": f"{_PREFIX}{name}"}, TABLE.sort_key: {"S": _SORT}}


def _n(value: float) -> dict[str, str]:
    return {"N": f"{value:.6f}"}


def _tat(item: Item) -> float | None:
    value = item.get(TAT)
    return None if value is None else float(value["N"])
