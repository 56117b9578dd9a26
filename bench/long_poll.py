"""What one A2A 1.1 long-poll GetTask (``currentGeneration``) costs while it is held on AWS.

The task store is `DynamoDBTaskStore` on moto's real server in this process, read by a
`TaskEngine` as the API function reads it: no in-process wake-ups (those are dev's), so the held
request looks at the task's head with backoff (50 ms growing to 1 s) until the generation
advances or the bound runs out. Two requests are measured:

- ``held``: nothing happens to the task; the request returns the unchanged task at its bound
  (``--bound`` seconds, the deployed default 25);
- ``woken``: the task changes ``--change-after`` seconds into the request; it returns at the next
  look (its latency past the change is at most the backoff's step then, 1 s at worst).

DynamoDB read units are computed from the items each read returns (strongly consistent reads,
4 KB units, as `bench/task_reads.py` does). The price adds the API function held for the whole
request (256 MB arm64, both front doors) and one Lambda request; the front door's request
charge is the same as any GetTask's and left out.

    .venv/bin/python bench/long_poll.py [--bound 25] [--change-after 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402
from a2a_core.aws.blobs import S3Blobs  # noqa: E402
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore  # noqa: E402
from a2a_core.core.broker import InMemoryBroker  # noqa: E402
from a2a_core.core.caller import Caller  # noqa: E402
from a2a_core.core.config import EngineConfig  # noqa: E402
from a2a_core.core.engine import TaskEngine  # noqa: E402
from a2a_core.core.requests import TaskQuery  # noqa: E402
from a2a_core.core.tasklog.changes import Change, status  # noqa: E402
from a2a_core.core.tasklog.ledger import TaskLedger  # noqa: E402
from a2a_core.core.tasklog.records import RunLease  # noqa: E402
from a2a_core.domain import Message, Role, TaskState, TextPart  # noqa: E402
from a2a_core.emulator.moto_server import start_emulator  # noqa: E402
from cost_model import PRICES  # noqa: E402
from task_reads import ReadMeter  # noqa: E402

API_MEMORY_GB = 256 / 1024
CALLER = Caller()


async def _task(ledger: TaskLedger) -> str:
    task_id = str(uuid.uuid4())
    message = Message(role=Role.user, parts=[TextPart(text="hi")], message_id=str(uuid.uuid4()))
    await ledger.create(task_id=task_id, context_id="ctx", message=message, run_id="r")
    claim = RunLease(run_id="r", lease_until=time.time() + 900, attempt=1, turn=1)
    await ledger.write(task_id, lambda _: Change([status(TaskState.working)], run=claim))
    return task_id


async def _measure(engine: TaskEngine, meter: ReadMeter, change_after: float | None) -> dict[str, Any]:
    ledger = engine.ledger
    task_id = await _task(ledger)
    before, started = meter.reading(), time.perf_counter()

    async def change() -> None:
        assert change_after is not None
        await asyncio.sleep(change_after)
        await ledger.write(task_id, lambda _: Change([status(TaskState.completed)]))

    changing = asyncio.ensure_future(change()) if change_after is not None else None
    task = await engine.get_task(TaskQuery(task_id, current_generation=2), CALLER)
    seconds = time.perf_counter() - started
    if changing is not None:
        await changing
    after = meter.reading()
    expected = 3 if change_after is not None else 2
    if task.generation != expected:
        raise RuntimeError(f"the long poll returned generation {task.generation}, not {expected}")
    reads, units = after[0] - before[0], after[1] - before[1]
    if change_after is not None:
        reads, units = reads - 1, units - 1  # the change's own read of the head (the writer's)
    dollars = (
        units * PRICES["dynamodb_read_unit"]
        + seconds * API_MEMORY_GB * PRICES["lambda_gb_second_arm64"]
        + PRICES["lambda_request"]
    )
    return {
        "held_seconds": round(seconds, 2),
        "reads": reads,
        "read_units": units,
        "dollars": dollars,
        "dollars_dynamodb": units * PRICES["dynamodb_read_unit"],
    }


async def run(bound: float, change_after: float) -> dict[str, Any]:
    aws = start_emulator()
    try:
        meter = ReadMeter()
        meter.attach(aws.clients.dynamodb)
        blobs = S3Blobs(lambda: aws.clients.s3, aws.names.bucket)
        store = DynamoDBTaskStore(aws.clients.dynamodb, aws.names.table, blobs=blobs, retention_seconds=86400)
        engine = TaskEngine(TaskLedger(store), InMemoryBroker(), EngineConfig(long_poll_timeout=bound))
        return {
            "bound_seconds": bound,
            "held": await _measure(engine, meter, None),
            "woken": await _measure(engine, meter, change_after),
        }
    finally:
        aws.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bound", type=float, default=25.0, help="A2A_LONG_POLL_SECONDS")
    parser.add_argument("--change-after", type=float, default=3.0, help="seconds until the task changes")
    parser.add_argument("--json", action="store_true")
    args = smoke.parse(parser, bound=0.5, change_after=0.2)
    result = asyncio.run(run(args.bound, args.change_after))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"A2A 1.1 long-poll GetTask on DynamoDB (no wake-ups), bound {args.bound:g} s")
    for name in ("held", "woken"):
        r = result[name]
        print(
            f"  {name:6} {r['held_seconds']:6.2f} s held, {r['reads']:3d} reads, "
            f"{r['read_units']:5.1f} read units: "
            f"${r['dollars'] * 1e6:,.2f} per million requests (DynamoDB ${r['dollars_dynamodb'] * 1e6:,.2f})"
        )


if __name__ == "__main__":
    main()
