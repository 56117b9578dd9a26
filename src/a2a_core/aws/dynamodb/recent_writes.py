"""The write ids a versioned item keeps of its recent versions, so a resent write is recognised.

Version ``v``'s write id is kept in the attribute ``w<v % RECENT_WRITES>`` (the write that made
the item, whose version the writer could not know, in ``created_by`` at ``created_version``):
the last `RECENT_WRITES` versions are named at a fixed cost, with no list to trim.
"""

from __future__ import annotations

from a2a_core.aws.calls import Item
from a2a_core.core.turn.context_store import RECENT_WRITES

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
