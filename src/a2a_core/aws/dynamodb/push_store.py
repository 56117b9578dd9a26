"""`PushConfigStore` on DynamoDB: one item per config, in its task's partition.

Items are keyed ``TASK#<task_id>`` / ``PUSH#<config_id>`` and hold ``config`` (the config's JSON),
``protocol_version`` (its ``generation``, which the JSON does not carry; items stored before it
was kept have none and read as 0.3), ``created_at`` (when the id was first stored: it orders the list) and the
TTL attribute.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from a2a_core.aws.calls import Item, aws_call, query_all
from a2a_core.aws.dynamodb.keys import PUSH_PREFIX, task_key
from a2a_core.aws.resources import TABLE
from a2a_core.core.push_store import PushConfigStore
from a2a_core.domain import PushNotificationConfig
from a2a_core.generations import V0_3

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from a2a_core.aws.dynamodb.push_marks import PushMarks

CONFIG = "config"
GENERATION = "protocol_version"  # the attribute's name since configs first kept it
# Shares its name (and so its N type) with the context index's sort key; push items carry no
# context_id, so the sparse index never holds them.
CREATED_AT = "created_at"


class DynamoDBPushConfigStore(PushConfigStore):
    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        *,
        retention_seconds: int,
        clock: Callable[[], float] = time.time,
        marks: PushMarks | None = None,
    ) -> None:
        """``marks``: the task store's, told of each config stored (its commits are then marked
        for the push function without asking the table)."""
        self._client = client
        self._table = table_name
        self._retention = retention_seconds
        self._clock = clock
        self._marks = marks

    async def put(self, task_id: str, config: PushNotificationConfig) -> PushNotificationConfig:
        stored = config if config.id else config.model_copy(update={"id": str(uuid.uuid4())})
        assert stored.id is not None
        now = self._clock()
        # One update, not a put: replacing a config keeps its first created_at, so it keeps its
        # place in the list, as the port promises.
        await aws_call(
            self._client.update_item,
            TableName=self._table,
            Key=self._key(task_id, stored.id),
            UpdateExpression=(
                "SET #config = :config, #protocol = :protocol, #created = if_not_exists(#created, :now), "
                "#ttl = :ttl"
            ),
            ExpressionAttributeNames={
                "#config": CONFIG,
                "#protocol": GENERATION,
                "#created": CREATED_AT,
                "#ttl": TABLE.ttl_attribute,
            },
            ExpressionAttributeValues={
                ":config": {"S": stored.model_dump_json()},
                ":protocol": {"S": stored.generation},
                ":now": {"N": f"{now:.6f}"},
                ":ttl": {"N": str(int(now) + self._retention)},
            },
        )
        if self._marks is not None:
            self._marks.configured(task_id)
        return stored.model_copy(deep=True)

    async def get(self, task_id: str, config_id: str | None = None) -> PushNotificationConfig | None:
        if config_id is None:
            configs = await self.list(task_id)
            return configs[0] if configs else None
        response = await aws_call(
            self._client.get_item,
            TableName=self._table,
            Key=self._key(task_id, config_id),
            ConsistentRead=True,
        )
        item = response.get("Item")
        return None if item is None else _config(item)

    async def list(self, task_id: str) -> list[PushNotificationConfig]:
        items = await query_all(
            self._client,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :push)",
            ExpressionAttributeNames={"#pk": TABLE.partition_key, "#sk": TABLE.sort_key},
            ExpressionAttributeValues={":pk": {"S": task_key(task_id)}, ":push": {"S": PUSH_PREFIX}},
            ConsistentRead=True,
        )
        items.sort(key=_created)
        return [_config(item) for item in items]

    async def delete(self, task_id: str, config_id: str) -> None:
        await aws_call(self._client.delete_item, TableName=self._table, Key=self._key(task_id, config_id))

    @staticmethod
    def _key(task_id: str, config_id: str) -> Item:
        return {
            TABLE.partition_key: {"S": task_key(task_id)},
            TABLE.sort_key: {"S": f"{PUSH_PREFIX}{config_id}"},
        }


def _config(item: Item) -> PushNotificationConfig:
    generation = str(item[GENERATION]["S"]) if GENERATION in item else V0_3.version
    return PushNotificationConfig.model_validate_json(item[CONFIG]["S"]).model_copy(
        update={"generation": generation}
    )


def _created(item: Item) -> tuple[float, str]:
    # Ties (a coarse clock) fall back to key order, so the list order is at least stable.
    return float(item[CREATED_AT]["N"]), str(item[TABLE.sort_key]["S"])
