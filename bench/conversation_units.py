"""DynamoDB units per turn of one long conversation in the session store (`DynamoDBSessionStore`).

Each turn does what a framework's session does on the kit's store: it reads the session's
records (the session, its scoped state) and the newest ``--window`` entries (the events or
messages the model is shown), appends the user's message and the agent's answer (one entry
each, ``--message-bytes`` of JSON), and rewrites one small record (the agent's state, as
Strands' ``update_agent`` does). Units are counted as DynamoDB bills them: a write the larger of
the item's sizes before and after, per KB; a strongly consistent read per 4 KB of what a call
returns (a query sums its items first), one unit at least. The item sizes before and after each
write are read through a second, uncounted client.

    .venv/bin/python bench/conversation_units.py            # turns 1, 100 and 1,000
    .venv/bin/python bench/conversation_units.py --smoke    # turns 1, 5 and 10 (CI)
    .venv/bin/python bench/conversation_units.py [--turns 1,100,1000] [--window 50]
        [--message-bytes 600] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import JsonValue

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")

from a2a_core.aws.clients import build_clients  # noqa: E402
from a2a_core.aws.dynamodb.session_store import DynamoDBSessionStore  # noqa: E402
from a2a_core.aws.json_client import AwsJsonClient  # noqa: E402
from a2a_core.core.turn.session_store import NO_RECORD  # noqa: E402
from a2a_core.emulator.moto_server import create_resources, start_emulator  # noqa: E402
from cost_meter import item_size  # noqa: E402

SESSION = "owner/adk/app/user/session"
WRITES = {"PutItem", "UpdateItem"}


@dataclass
class Units:
    """Billed units of the calls made since the last `take`."""

    write: float = 0.0
    read: float = 0.0
    calls: dict[str, int] = field(default_factory=dict)

    def take(self) -> Units:
        taken = Units(self.write, self.read, dict(self.calls))
        self.write, self.read, self.calls = 0.0, 0.0, {}
        return taken


class BilledUnits:
    """Counts the units of ``client``'s DynamoDB calls; ``peek`` reads items uncounted."""

    def __init__(self, client: AwsJsonClient, peek: Any, table: str) -> None:
        self.units = Units()
        self._peek = peek
        self._table = table
        self._before: dict[str, int] = {}
        client.before_call.append(self._before_call)
        client.after_call.append(self._after_call)

    def _size(self, key: dict[str, Any]) -> int:
        item = self._peek.get_item(TableName=self._table, Key=key, ConsistentRead=True).get("Item")
        return item_size(item) if item else 0

    def _before_call(self, operation: str, params: dict[str, Any]) -> None:
        if operation in WRITES:
            key = params.get("Key") or {name: params["Item"][name] for name in ("pk", "sk")}
            self._before = {"size": self._size(key)}

    def _after_call(self, operation: str, params: dict[str, Any], answer: dict[str, Any]) -> None:
        self.units.calls[operation] = self.units.calls.get(operation, 0) + 1
        if "Error" in answer:
            return
        if operation in WRITES:
            key = params.get("Key") or {name: params["Item"][name] for name in ("pk", "sk")}
            larger = max(self._before.get("size", 0), self._size(key))
            self.units.write += math.ceil(larger / 1024)
        elif operation in ("GetItem", "Query"):
            items = answer.get("Items") or ([answer["Item"]] if answer.get("Item") else [])
            self.units.read += max(1, math.ceil(sum(item_size(i) for i in items) / 4096))


def message(turn: int, role: str, size: int) -> dict[str, Any]:
    """A framework message of about ``size`` bytes of JSON."""
    head = {"role": role, "turn": turn, "id": f"{role}-{turn:06d}", "content": [{"text": ""}]}
    filler = max(0, size - len(json.dumps(head)))
    head["content"] = [{"text": ("word " * (filler // 5 + 1))[:filler]}]
    return head


async def turn(store: DynamoDBSessionStore, number: int, window: int, size: int) -> None:
    """One turn: read what the model is shown, append what was said, note the agent's state."""
    for name in ("session", "app_state", "user_state"):
        await store.load_record(SESSION, name)
    await store.read_entries(SESSION, limit=window, newest=True)
    await store.append(SESSION, message(number, "user", size))
    await store.append(SESSION, message(number, "agent", size))
    state = await store.load_record(SESSION, "agent")
    value: JsonValue = {"state": {"turns": number}, "interrupt_state": {}, "conversation_manager_state": {}}
    expected = NO_RECORD if state is None else state.version
    await store.save_record(SESSION, "agent", value, expected_version=expected)


async def measure(checkpoints: list[int], window: int, size: int) -> list[dict[str, Any]]:
    aws = start_emulator()
    try:
        names = create_resources(aws.clients, None, aws.region)
        client = build_clients(aws.region, aws.endpoint_url).dynamodb
        assert isinstance(client, AwsJsonClient)
        meter = BilledUnits(client, aws.clients.dynamodb, names.table)
        store = DynamoDBSessionStore(client, names.table, retention_seconds=86400)
        for name in ("session", "app_state", "user_state"):
            await store.save_record(SESSION, name, {"name": name}, expected_version=NO_RECORD)
        meter.units.take()
        rows = []
        for number in range(1, max(checkpoints) + 1):
            await turn(store, number, window, size)
            units = meter.units.take()
            if number in checkpoints:
                rows.append(
                    {
                        "turn": number,
                        "write_units": units.write,
                        "read_units": units.read,
                        "calls": units.calls,
                    }
                )
        return rows
    finally:
        aws.stop()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="turns 1, 5 and 10 (CI)")
    parser.add_argument("--turns", default="1,100,1000", help="the turns to report (comma-separated)")
    parser.add_argument("--window", type=int, default=50, help="entries read per turn (the newest)")
    parser.add_argument("--message-bytes", type=int, default=600, help="JSON bytes of each message")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    checkpoints = [1, 5, 10] if args.smoke else sorted(int(t) for t in args.turns.split(","))
    rows = asyncio.run(measure(checkpoints, args.window, args.message_bytes))
    if args.json:
        print(
            json.dumps({"window": args.window, "message_bytes": args.message_bytes, "turns": rows}, indent=2)
        )
    else:
        print(f"one conversation, {args.message_bytes}-byte messages, the newest {args.window} read per turn")
        print(f"{'turn':>6} {'write units':>12} {'read units':>11}  calls")
        for row in rows:
            calls = ", ".join(f"{name} {count}" for name, count in sorted(row["calls"].items()))
            print(f"{row['turn']:>6} {row['write_units']:>12.0f} {row['read_units']:>11.0f}  {calls}")
    first, last = rows[0], rows[-1]
    if last["write_units"] != first["write_units"]:
        print(f"FAIL: turn {last['turn']} writes {last['write_units']} units, turn 1 {first['write_units']}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
