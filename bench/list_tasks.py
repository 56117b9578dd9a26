"""What ListTasks and its owner index cost on DynamoDB, counted on the local (moto) stack.

1. Write units per simple task, through the Lambda handlers exactly as `aws_cost.py` runs them
   (non-blocking send, the worker completes it, tasks/get): the owner index entry its first
   commit writes is included.
2. Read units of ListTasks pages of 50 over one caller's ``--tasks`` simple tasks (a quarter of
   them left in input-required), through `TaskEngine.list_tasks` on `DynamoDBTaskStore`: the
   first page (which also counts the total) and the second page, without a filter, with a
   context filter and with a state filter. Units are computed as DynamoDB bills them (see
   `aws_cost.Meter`): each task read is a strongly consistent query of its log, each index
   query is billed on every entry it examined (ScannedCount x entry size, eventually consistent).

    .venv/bin/python bench/list_tasks.py [--tasks 200] [--simple-tasks 20] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402
from a2a_core.aws.blobs import S3Blobs  # noqa: E402
from a2a_core.aws.clients import build_clients  # noqa: E402
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore  # noqa: E402
from a2a_core.core.broker import InMemoryBroker  # noqa: E402
from a2a_core.core.caller import Caller  # noqa: E402
from a2a_core.core.changes import Change, Decide, status  # noqa: E402
from a2a_core.core.engine import TaskEngine  # noqa: E402
from a2a_core.core.ledger import TaskLedger  # noqa: E402
from a2a_core.core.records import ArtifactUpdated  # noqa: E402
from a2a_core.core.requests import ListTasksQuery  # noqa: E402
from a2a_core.domain import Artifact, Message, Role, TaskState, TextPart  # noqa: E402
from a2a_core.emulator.moto_server import start_emulator  # noqa: E402
from aws_cost import PRICES, Meter  # noqa: E402
from aws_cost import run as simple_task_costs  # noqa: E402

CALLER = Caller(principal="api_key:bench")
PAGE = 50


async def seed(ledger: TaskLedger, tasks: int) -> None:
    """``tasks`` simple tasks of one caller, in two contexts, written as the worker writes them;
    every fourth one waits in input-required instead of completing."""
    for i in range(tasks):
        task_id, context = str(uuid.uuid4()), f"ctx-{i % 2}"
        message = Message(
            role=Role.user, parts=[TextPart(text="What is six times seven?")], message_id=task_id
        )
        await ledger.create(
            task_id=task_id, context_id=context, message=message, run_id="r", owner=CALLER.principal
        )
        await ledger.write(task_id, lambda _: Change([status(TaskState.working)]))
        reply = Message(role=Role.agent, parts=[TextPart(text="Which units?")], message_id=f"a-{task_id}")
        answer = Artifact(artifact_id=str(uuid.uuid4()), name="answer", parts=[TextPart(text="42")])
        last = (
            Change([status(TaskState.input_required, reply)])
            if i % 4 == 3
            else Change([ArtifactUpdated(seq=0, artifact=answer), status(TaskState.completed)])
        )
        await ledger.write(task_id, always(last))


def always(change: Change) -> Decide:
    return lambda _: change


async def measure_pages(engine: TaskEngine, meter: Meter, query: ListTasksQuery) -> list[dict[str, Any]]:
    """Read units, AWS calls and time of the first two pages of ``query``."""
    pages = []
    token = None
    for _ in range(2):
        meter.read_units = 0
        meter.calls.clear()
        started = time.perf_counter()
        page = await engine.list_tasks(replace(query, page_token=token), CALLER)
        pages.append(
            {
                "tasks": len(page.tasks),
                "total_size": page.total_size,
                "read_units": round(meter.read_units, 2),
                "calls": dict(meter.calls),
                "seconds_on_moto": round(time.perf_counter() - started, 3),
            }
        )
        token = page.next_page_token
        if not token:
            break
    return pages


def list_costs(tasks: int) -> dict[str, Any]:
    aws = start_emulator()
    try:
        clients = build_clients(aws.region, aws.endpoint_url, credentials=aws.credentials)
        meter = Meter()
        meter.attach(clients.dynamodb)
        store = DynamoDBTaskStore(
            clients.dynamodb,
            aws.names.table,
            blobs=S3Blobs(lambda: clients.s3, aws.names.bucket),
            retention_seconds=30 * 24 * 3600,
        )
        engine = TaskEngine(TaskLedger(store), InMemoryBroker())
        asyncio.run(seed(engine.ledger, tasks))
        queries = {
            "no filter": ListTasksQuery(page_size=PAGE),
            "context filter (half the tasks)": ListTasksQuery(page_size=PAGE, context_id="ctx-0"),
            "state filter (completed, three quarters)": ListTasksQuery(
                page_size=PAGE, state=TaskState.completed
            ),
            "state filter (input-required, a quarter)": ListTasksQuery(
                page_size=PAGE, state=TaskState.input_required
            ),
        }
        results = {name: asyncio.run(measure_pages(engine, meter, query)) for name, query in queries.items()}
        return {"tasks": tasks, "index_entry_bytes": meter.index_entry_bytes, "pages": results}
    finally:
        aws.stop()


def print_report(writes: dict[str, Any], lists: dict[str, Any]) -> None:
    per = writes["per_task"]
    print(f"simple task through the handlers ({writes['tasks']} tasks on moto, REST API front door):")
    print(f"  write units per task  {per['write_units']}   (4 with the owner index entry)")
    print(f"  read units per task   {per['read_units']}")
    print(f"\nListTasks pages of {PAGE}, one caller with {lists['tasks']} simple tasks")
    print(f"(owner index entry: {lists['index_entry_bytes']} bytes):")
    for name, pages in lists["pages"].items():
        print(f"  {name}")
        for number, page in enumerate(pages, 1):
            calls = ", ".join(f"{n} {call.split(':')[1]}" for call, n in sorted(page["calls"].items()))
            dollars = page["read_units"] * PRICES["dynamodb_read_unit"] * 1e6
            print(
                f"    page {number}: {page['tasks']:>3} tasks of {page['total_size']}, "
                f"{page['read_units']:>6} read units (${dollars:.2f} per million pages); {calls}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--simple-tasks", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = smoke.parse(parser, tasks=12, simple_tasks=1)
    writes = simple_task_costs(args.simple_tasks, "rest_api")
    lists = list_costs(args.tasks)
    if args.json:
        print(json.dumps({"simple_task": writes, "list_tasks": lists}, indent=2))
        return
    print_report(writes, lists)


if __name__ == "__main__":
    main()
