"""`ApiKeyStore` on DynamoDB: the task table, in one partition of its own.

Items are keyed ``APIKEYS`` / ``APIKEY#<key id>`` and hold the key's name, the SHA-256 of the key
(never the key), its creation, expiry and revocation times and optional rate limits. One
partition keeps `list` a single query; lookups are one eventually consistent ``GetItem`` (half a
read unit), and each instance caches them (`a2a_core.auth.stored_keys`), so the partition sees
about one read per key per instance per cache period. The task table rather than SSM: the API
function already holds a client and the grants for it, reads cost $0.125 per million against
SSM's 40 requests per second standard throughput (or $0.05 per 10,000 beyond it), and the rate
buckets live in the same table.

A revoked or expired key is kept `RETAIN_SECONDS` for listings, then the table's TTL removes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_core.auth.key_store import ApiKeyStore, KeyExistsError, StoredKey
from a2a_core.aws.calls import Item, KeyTakenError, aws_call, query_all
from a2a_core.aws.resources import TABLE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

PARTITION = "APIKEYS"
_SORT_PREFIX = "APIKEY#"
RETAIN_SECONDS = 30 * 24 * 3600
# Same names (and types) as the push store's: items without context_id stay out of the index.
CREATED_AT = "created_at"
_FIELDS = {
    "name": "key_name",
    "digest": "digest",
    "expires_at": "key_expires_at",
    "revoked_at": "revoked_at",
    "rate_limit": "rate_limit",
    "burst_limit": "burst_limit",
}


class DynamoDBApiKeyStore(ApiKeyStore):
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._client = client
        self._table = table_name

    async def get(self, key_id: str) -> StoredKey | None:
        response = await aws_call(self._client.get_item, TableName=self._table, Key=_key(key_id))
        item = response.get("Item")
        return None if item is None else _from_item(item)

    async def add(self, key: StoredKey) -> None:
        try:
            await aws_call(
                self._client.put_item,
                TableName=self._table,
                Item=_to_item(key),
                ConditionExpression="attribute_not_exists(#pk)",
                ExpressionAttributeNames={"#pk": TABLE.partition_key},
            )
        except KeyTakenError:
            raise KeyExistsError(key.key_id) from None

    async def revoke(self, key_id: str, *, at: float) -> StoredKey | None:
        try:
            response = await aws_call(
                self._client.update_item,
                TableName=self._table,
                Key=_key(key_id),
                UpdateExpression="SET #revoked = if_not_exists(#revoked, :at), #ttl = :purge",
                ConditionExpression="attribute_exists(#pk)",
                ExpressionAttributeNames={
                    "#revoked": _FIELDS["revoked_at"],
                    "#ttl": TABLE.ttl_attribute,
                    "#pk": TABLE.partition_key,
                },
                ExpressionAttributeValues={
                    ":at": {"N": _number(at)},
                    ":purge": {"N": str(int(at) + RETAIN_SECONDS)},
                },
                ReturnValues="ALL_NEW",
            )
        except KeyTakenError:  # the condition failed: there is no such key
            return None
        return _from_item(response["Attributes"])

    async def list(self) -> list[StoredKey]:
        items = await query_all(
            self._client,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": TABLE.partition_key},
            ExpressionAttributeValues={":pk": {"S": PARTITION}},
            ConsistentRead=True,
        )
        return sorted((_from_item(item) for item in items), key=lambda k: (k.name, k.created_at, k.key_id))


def _key(key_id: str) -> Item:
    return {TABLE.partition_key: {"S": PARTITION}, TABLE.sort_key: {"S": f"{_SORT_PREFIX}{key_id}"}}


def _number(value: float) -> str:
    return f"{value:.6f}"


def _to_item(key: StoredKey) -> Item:
    item: Item = {
        **_key(key.key_id),
        CREATED_AT: {"N": _number(key.created_at)},
        _FIELDS["name"]: {"S": key.name},
        _FIELDS["digest"]: {"S": key.digest},
    }
    for field in ("expires_at", "revoked_at", "rate_limit", "burst_limit"):
        value = getattr(key, field)
        if value is not None:
            item[_FIELDS[field]] = {"N": _number(value) if isinstance(value, float) else str(value)}
    if key.expires_at is not None:  # gone from the table a while after it stops working
        item[TABLE.ttl_attribute] = {"N": str(int(key.expires_at) + RETAIN_SECONDS)}
    return item


def _from_item(item: Item) -> StoredKey:
    def number(field: str) -> float | None:
        value = item.get(_FIELDS[field])
        return None if value is None else float(value["N"])

    burst = number("burst_limit")
    return StoredKey(
        key_id=str(item[TABLE.sort_key]["S"]).removeprefix(_SORT_PREFIX),
        name=item[_FIELDS["name"]]["S"],
        digest=item[_FIELDS["digest"]]["S"],
        created_at=float(item[CREATED_AT]["N"]),
        expires_at=number("expires_at"),
        revoked_at=number("revoked_at"),
        rate_limit=number("rate_limit"),
        burst_limit=None if burst is None else int(burst),
    )
