"""Make moto's DynamoDB queries cost what DynamoDB's do: the partition asked for, not the table.

moto answers every Query by sorting every item of the table and testing each: a cost that grows
with everything the emulator holds, so dev (whose state is kept across restarts) slowed down as
it was used, each task's reads costing more than the last's. Here a query of the table reads its
partition directly, and a query of an index reads the items holding that index's partition key
value, from a map built once per change of the table's contents (DynamoDB's writes; moto's
update changes items in place, so the map follows every write, not just puts). Results are
exactly moto's: only the items it goes through change.

Installed before `moto_server._serialize_dynamodb_writes`, whose lock (around the writes as
wrapped here, and the queries) makes one call at a time see the table: the per-query view below
and the maps' versions rely on that.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

_WRITES = ("put_item", "update_item", "delete_item", "transact_write_items", "batch_write_item")
_version = itertools.count()
_state = {"version": next(_version)}
# (table name, attribute) -> (version it was built at, {value: items})
_maps: dict[tuple[str, str], tuple[int, dict[Any, list[Any]]]] = {}


def partition_queries() -> None:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    if getattr(Table, "_a2a_partitioned", False):
        return
    for name in _WRITES:
        if hasattr(DynamoDBBackend, name):
            setattr(DynamoDBBackend, name, _bumping(getattr(DynamoDBBackend, name)))
    original = Table.query

    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        items = _candidates(self, hash_key, args, kwargs)
        if items is None:
            return original(self, hash_key, *args, **kwargs)
        self.all_items = lambda: items  # this call's view: shadows the method
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            del self.all_items

    setattr(Table, "query", query)  # noqa: B010 (patching moto's class)
    setattr(Table, "_a2a_partitioned", True)  # noqa: B010


def _bumping(write: Any) -> Any:
    def written(*args: Any, **kwargs: Any) -> Any:
        try:
            return write(*args, **kwargs)
        finally:
            _state["version"] = next(_version)

    return written


def _candidates(table: Any, hash_key: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
    """The items a query can return (None: leave it to moto as it is)."""
    index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
    if index_name is None:
        if hash_key is None:
            return None
        partition = table.items.get(hash_key)
        if partition is None:
            return []
        return list(partition.values()) if table.range_key_attr else [partition]
    conditions = kwargs.get("hash_key_conditions") or []
    if len(conditions) != 1:
        return None
    attribute, value = conditions[0]
    return _by_value(table, attribute).get(value, [])


def _by_value(table: Any, attribute: str) -> dict[Any, list[Any]]:
    key = (table.name, attribute)
    built = _maps.get(key)
    if built is not None and built[0] == _state["version"]:
        return built[1]
    by_value: dict[Any, list[Any]] = defaultdict(list)
    for partition in table.items.values():
        for item in partition.values() if table.range_key_attr else [partition]:
            found = item.attrs.get(attribute)
            if found is not None:
                by_value[found].append(item)
    _maps[key] = (_state["version"], by_value)
    return by_value
