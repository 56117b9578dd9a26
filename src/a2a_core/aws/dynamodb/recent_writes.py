"""Versioned items (a context's head, a session's records): one conditional write per version,
and the write ids of the recent versions, so a resent write is recognised.

Version ``v``'s write id is kept in the attribute ``w<v % RECENT_WRITES>`` (the write that made
the item, whose version the writer could not know, in ``created_by`` at ``created_version``):
the last `RECENT_WRITES` versions are named at a fixed cost, with no list to trim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_core.aws.calls import Item, KeyTakenError, aws_call
from a2a_core.aws.resources import TABLE
from a2a_core.core.turn.context_store import RECENT_WRITES

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

VERSION = "version"
CREATED_BY = "created_by"
CREATED_VERSION = "created_version"


def slot(version: int) -> str:
    """The attribute holding the write id of ``version``."""
    return f"w{version % RECENT_WRITES}"


def landed_version(item: Item, write_id: str) -> int | None:
    """The version ``write_id`` landed at, if ``item`` still names it; else None."""
    if VERSION not in item:
        return None
    if item.get(CREATED_BY, {}).get("S") == write_id:
        return int(item[CREATED_VERSION]["N"])
    current = int(item[VERSION]["N"])
    for back in range(RECENT_WRITES):
        version = current - back
        if version > 0 and item.get(slot(version), {}).get("S") == write_id:
            return version
    return None


async def versioned_update(
    client: DynamoDBClient,
    *,
    table: str,
    key: Item,
    expected_version: int,
    write_id: str,
    now: int,
    expires_at: dict[str, str],
    assignments: str,
    names: dict[str, str],
    values: Item,
) -> int | None:
    """Write the next version of a versioned item with one conditional `UpdateItem`: the new
    version, or None when another writer moved the item past ``expected_version`` (a conflict).

    ``expected_version`` 0 creates the item, or replaces one past its TTL (an item past its TTL
    reads as gone, so no write may build on its version either). ``assignments`` are the
    expression's own ``SET`` assignments (a ``REMOVE`` clause may follow them), with ``names`` and
    ``values``. The version only ever grows, even past an expired item, so a writer that read it
    before it expired can never build on the new one. A resent write whose answer was lost finds
    its own write id among the recent ones and counts as landed, at the version it made.
    """
    names = {**names, "#version": VERSION, "#ttl": TABLE.ttl_attribute}
    values = {**values, ":one": {"N": "1"}, ":zero": {"N": "0"}, ":now": {"N": str(now)}}
    values.update({":write_id": {"S": write_id}, ":ttl": expires_at})
    if expected_version == 0:
        condition = "attribute_not_exists(#pk) OR #ttl < :now"
        names.update({"#pk": TABLE.partition_key, "#by": CREATED_BY, "#at": CREATED_VERSION})
        # The new version is only known here when no expired item is being replaced.
        remembered = "#by = :write_id, #at = if_not_exists(#version, :zero) + :one"
    else:
        condition = "#version = :expected AND #ttl >= :now"
        values[":expected"] = {"N": str(expected_version)}
        names["#slot"] = slot(expected_version + 1)
        remembered = "#slot = :write_id"
    try:
        response = await aws_call(
            client.update_item,
            TableName=table,
            Key=key,
            UpdateExpression=(
                "SET #version = if_not_exists(#version, :zero) + :one, #ttl = :ttl, "
                f"{remembered}, {assignments}"
            ),
            ConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValues="UPDATED_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except KeyTakenError as taken:
        return landed_version(taken.existing or {}, write_id)
    return int(response["Attributes"][VERSION]["N"])
