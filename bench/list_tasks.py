"""What ListTasks costs on DynamoDB, counted on the local (moto) stack, and what its indexes add to
a simple task's writes.

1. Write units per simple task, through the Lambda handlers exactly as `aws_cost.py` runs them
   (non-blocking send, the worker completes it, tasks/get), split into what the previous version
   wrote (the commits, the owner index entry) and what listing adds: the listing index entries
   (on the first commit, then on the one that ends the task), the move (an update taking the
   first commit's entry out, and that index delete) and the listing bytes on each commit.
2. ListTasks pages of each of ``--page-sizes`` over one caller with each of ``--sizes`` simple tasks (written
   through the ledger on `DynamoDBTaskStore`: two contexts, a quarter left in input-required, the
   others completed; another caller's tasks beside them), through `TaskEngine.list_tasks`, for each
   filter: the first page and the third (or the last), read units (the index query, billed on
   every entry it examined; the task reads, strongly consistent queries), calls and seconds on
   moto (moto is slower than DynamoDB: compare sizes, not absolute times). A page holds what
   matches, so at 10 tasks a page of 50 holds fewer tasks than at 1,000: pages of 1 compare
   the same page at every size.

    .venv/bin/python bench/list_tasks.py [--sizes 10,1000,10000] [--page-sizes 50,1]
        [--simple-tasks 20] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import aws_cost  # noqa: E402
import smoke  # noqa: E402
from a2a_core.aws.blobs import S3Blobs  # noqa: E402
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore  # noqa: E402
from a2a_core.aws.resources import TABLE  # noqa: E402
from a2a_core.core.broker import InMemoryBroker  # noqa: E402
from a2a_core.core.caller import Caller  # noqa: E402
from a2a_core.core.engine import TaskEngine  # noqa: E402
from a2a_core.core.requests import ListTasksQuery  # noqa: E402
from a2a_core.core.tasklog.changes import Change, status  # noqa: E402
from a2a_core.core.tasklog.ledger import TaskLedger  # noqa: E402
from a2a_core.core.tasklog.records import ArtifactUpdated, RunLease  # noqa: E402
from a2a_core.domain import Artifact, Message, Role, TaskState, TextPart  # noqa: E402
from a2a_core.emulator.process import start_emulator_process  # noqa: E402
from cost_meter import index_entries, item_size, removed_index_entries  # noqa: E402
from cost_model import PRICES  # noqa: E402

CALLER = Caller(principal="api_key:bench")
OTHER = Caller(principal="api_key:neighbour")
LISTING_BODY = re.compile(r',"listing":\d+')
LISTING_ATTRIBUTES = (TABLE.list_key, TABLE.list_sort_key)
SEED_AT_ONCE = 16


# --- 1. write units per simple task ---------------------------------------------------------


class WriteMeter(aws_cost.Meter):
    """`aws_cost.Meter`, also keeping every write, to tell listing's part of them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.writes: list[tuple[str, dict[str, Any]]] = []

    def count(self, service: str, operation: str, params: dict[str, Any], answer: dict[str, Any]) -> None:
        super().count(service, operation, params, answer)
        if service == "dynamodb" and operation in ("PutItem", "UpdateItem") and "Error" not in answer:
            self.writes.append((operation, params))


def write_units(tasks: int) -> dict[str, Any]:
    meters: list[WriteMeter] = []

    def metered(**kwargs: Any) -> WriteMeter:
        meters.append(WriteMeter(**kwargs))
        return meters[-1]

    aws_cost.Meter = metered  # type: ignore[assignment, misc]  # aws_cost.run builds its meter by this name
    run = aws_cost.run(tasks, "rest_api")
    split: Counter[str] = Counter()
    for operation, params in meters[-1].writes:
        if operation == "UpdateItem":
            moved = removed_index_entries(params)
            split["listing: moves (update + index delete)" if moved else "other updates"] += 1 + len(moved)
            continue
        item = params["Item"]
        if TABLE.partition_key not in item or not item[TABLE.partition_key]["S"].startswith("TASK#"):
            split["other items"] += math.ceil(item_size(item) / 1024)
            continue
        before = {k: v for k, v in item.items() if k not in LISTING_ATTRIBUTES}
        if "body" in before:
            before["body"] = {"S": LISTING_BODY.sub("", before["body"]["S"])}
        split["commits, as before"] += math.ceil(item_size(before) / 1024)
        split["listing: bytes on the commits"] += math.ceil(item_size(item) / 1024) - math.ceil(
            item_size(before) / 1024
        )
        for name, entry in index_entries(item).items():
            label = "owner index entry" if name == TABLE.owner_index else "listing: listing index entries"
            split[label] += math.ceil(item_size(entry) / 1024)
    per_task = {name: round(units / tasks, 2) for name, units in sorted(split.items())}
    extra = sum(units for name, units in per_task.items() if name.startswith("listing"))
    return {
        "tasks": tasks,
        "write_units_per_task": run["per_task"]["write_units"],
        "split_per_task": per_task,
        "listing_write_units_per_task": round(extra, 2),
        "listing_dollars_per_million_tasks": round(extra * PRICES["dynamodb_write_unit"] * 1e6, 3),
    }


# --- 2. ListTasks pages ----------------------------------------------------------------------


@dataclass
class ReadMeter:
    """Read units as DynamoDB bills them: an index query for every entry it examined
    (eventually consistent), a table query for what it returned, a batch read per item."""

    read_units: float = 0.0
    index_units: float = 0.0
    calls: Counter[str] = field(default_factory=Counter)
    entry_bytes: dict[str, int] = field(default_factory=dict)

    def attach(self, client: Any) -> None:
        client.meta.events.register("provide-client-params.dynamodb.*", self._request)
        client.meta.events.register("after-call.dynamodb.*", self._response)

    def reset(self) -> None:
        self.read_units = self.index_units = 0.0
        self.calls.clear()

    def _request(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        self.calls[model.name] += 1
        context["a2a_index"] = params.get("IndexName")
        context["a2a_factor"] = 1.0 if params.get("ConsistentRead") else 0.5
        if model.name == "PutItem":
            for name, entry in index_entries(params["Item"]).items():
                self.entry_bytes[name] = item_size(entry)

    def _response(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        index = context.get("a2a_index")
        if model.name == "Query" and index:
            items = parsed.get("Items", [])
            unseen = parsed.get("ScannedCount", 0) - parsed.get("Count", 0)  # filtered out
            size = sum(map(item_size, items)) + unseen * self.entry_bytes.get(index, 200)
            units = max(1, math.ceil(size / 4096)) * 0.5
            self.index_units += units
            self.read_units += units
        elif model.name in ("Query", "GetItem"):
            items = parsed.get("Items") or ([parsed["Item"]] if parsed.get("Item") else [])
            units = max(1, math.ceil(sum(map(item_size, items)) / 4096))
            self.read_units += units * context.get("a2a_factor", 1.0)
        elif model.name == "BatchGetItem":
            for items in parsed.get("Responses", {}).values():
                self.read_units += sum(max(1, math.ceil(item_size(i) / 4096)) for i in items)


async def seed(ledger: TaskLedger, caller: Caller, tasks: int) -> float:
    """``tasks`` simple tasks of ``caller``, written as the API and the worker write them; returns
    when (epoch seconds) the newest ~150 of them began, for the time filter."""
    since = time.time()
    for start in range(0, tasks, SEED_AT_ONCE):
        if tasks - start <= 150 and since > time.time() - 1e-3:
            since = time.time()
        await asyncio.gather(
            *(one_task(ledger, caller, i) for i in range(start, min(tasks, start + SEED_AT_ONCE)))
        )
    return since if tasks > 150 else 0.0


async def one_task(ledger: TaskLedger, caller: Caller, i: int) -> None:
    task_id, context = str(uuid.uuid4()), f"ctx-{(i // 4) % 2}"
    message = Message(role=Role.user, parts=[TextPart(text="What is six times seven?")], message_id=task_id)
    await ledger.create(
        task_id=task_id, context_id=context, message=message, run_id="r", owner=caller.principal
    )
    claim = RunLease(run_id="r", lease_until=time.time() + 900, attempt=1)
    head = await ledger.write(task_id, lambda _: Change([status(TaskState.working)], run=claim))
    if i % 4 == 3:
        reply = Message(role=Role.agent, parts=[TextPart(text="Which units?")], message_id=f"a-{task_id}")
        last = Change([status(TaskState.input_required, reply)])
    else:
        answer = Artifact(artifact_id=str(uuid.uuid4()), name="answer", parts=[TextPart(text="42")])
        last = Change([ArtifactUpdated(seq=0, artifact=answer), status(TaskState.completed)])
    await ledger.write(task_id, lambda _: last, head=head)


def queries(page: int, since: float) -> dict[str, ListTasksQuery]:
    after = datetime.fromtimestamp(since, UTC)
    return {
        "none": ListTasksQuery(page_size=page),
        "status (input-required, 1/4)": ListTasksQuery(page_size=page, state=TaskState.input_required),
        "contextId (1/2)": ListTasksQuery(page_size=page, context_id="ctx-0"),
        "statusTimestampAfter (newest ~150)": ListTasksQuery(page_size=page, status_timestamp_after=after),
        "status + contextId (1/8)": ListTasksQuery(
            page_size=page, state=TaskState.input_required, context_id="ctx-1"
        ),
    }


async def measure(engine: TaskEngine, meter: ReadMeter, query: ListTasksQuery) -> list[dict[str, Any]]:
    """The first page and the third (or the last, if there are fewer)."""
    measured, token, number = [], "", 0
    while number < 3:
        number += 1
        meter.reset()
        started = time.perf_counter()
        page = await engine.list_tasks(replace(query, page_token=token or None), CALLER)
        seconds = time.perf_counter() - started
        if number in (1, 3) or not page.next_page_token:
            measured.append(
                {
                    "page": number,
                    "tasks": len(page.tasks),
                    "total_size": page.total_size,
                    "read_units": round(meter.read_units, 2),
                    "index_read_units": round(meter.index_units, 2),
                    "calls": dict(meter.calls),
                    "seconds_on_moto": round(seconds, 3),
                }
            )
        token = page.next_page_token
        if not token:
            break
    return measured


async def list_costs(sizes: list[int], page_sizes: list[int]) -> dict[str, Any]:
    aws = start_emulator_process()
    try:
        meter = ReadMeter()
        meter.attach(aws.clients.dynamodb)
        store = DynamoDBTaskStore(
            aws.clients.dynamodb,
            aws.names.table,
            blobs=S3Blobs(lambda: aws.clients.s3, aws.names.bucket),
            retention_seconds=30 * 24 * 3600,
        )
        engine = TaskEngine(TaskLedger(store), InMemoryBroker())
        results: dict[str, dict[str, Any]] = {}
        seeded, since = 0, 0.0
        await seed(engine.ledger, OTHER, max(sizes) // 10)  # a neighbour's tasks in the same table
        for size in sorted(sizes):
            started = time.perf_counter()
            newest = await seed(engine.ledger, CALLER, size - seeded)
            since = newest or since
            seeded = size
            results[str(size)] = {"seed_seconds": round(time.perf_counter() - started, 1)}
            for page in page_sizes:
                results[str(size)][f"pages of {page}"] = {
                    name: await measure(engine, meter, query) for name, query in queries(page, since).items()
                }
        return {"page_sizes": page_sizes, "sizes": results}
    finally:
        aws.stop()


def print_report(writes: dict[str, Any], lists: dict[str, Any]) -> None:
    print(f"write units per simple task, through the handlers ({writes['tasks']} tasks on moto):")
    print(f"  all: {writes['write_units_per_task']}")
    for name, units in writes["split_per_task"].items():
        print(f"    {name:<42} {units}")
    print(
        f"  listing adds {writes['listing_write_units_per_task']} write units per simple task "
        f"(${writes['listing_dollars_per_million_tasks']} per million tasks)"
    )
    sizes = lists["sizes"]
    load = os.getloadavg()[0]
    for page in lists["page_sizes"]:
        key = f"pages of {page}"
        print(f"\nListTasks {key}: read units per page (the index query's part), tasks, ms on moto")
        print(f"(load average {load:.2f}; written through the ledger, a neighbour's tasks beside them)")
        for name in next(iter(sizes.values()))[key]:
            print(f"  {name}")
            for size, result in sizes.items():
                cells = [
                    f"page {p['page']}: {p['read_units']:>5} RU ({p['index_read_units']}), "
                    f"{p['tasks']:>2} tasks, {1000 * p['seconds_on_moto']:>5.0f} ms"
                    for p in result[key][name]
                ]
                print(f"    {size:>6} tasks  " + "  |  ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--page-sizes", default="50,1")
    parser.add_argument("--simple-tasks", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = smoke.parse(parser, sizes="4,12", page_sizes="3", simple_tasks=1)
    writes = write_units(args.simple_tasks)
    sizes, page_sizes = ([int(n) for n in text.split(",")] for text in (args.sizes, args.page_sizes))
    lists = asyncio.run(list_costs(sizes, page_sizes))
    if args.json:
        print(json.dumps({"simple_task": writes, "list_tasks": lists}, indent=2))
        return
    print_report(writes, lists)


if __name__ == "__main__":
    main()
