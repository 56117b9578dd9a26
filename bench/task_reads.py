"""Task reads against log length: what one read costs on a task of 1, 100, 1,000 and 10,000 commits.

The dev stack on the default backend (`a2a_core.dev.stack.build_dev_stack` with ``backend="local"``:
moto's real server in this process, the DynamoDB task store behind the in-process notifier) is
built once; no HTTP and no pollers, so only the reads themselves are timed. Per size, one task is
written through the ledger as a conversation of turns (the API's continuation: user message +
``working``; the worker's claim; an ``answer`` artifact in two chunks, replaced each turn; the
agent's question, ``input-required``) until it holds that many commits. Every task is written
before any is measured, so each is measured on the same table: moto's Query scans the whole
table, so its time grows with the table, not with the task. Then, each ``--repeat`` times
(median wall time; read units and calls of the first run, on the task at its nominal size):

- ``tasks/get`` with historyLength 1 and 10 (`TaskEngine.get_task`);
- a worker turn start: the API continues the task (not measured), then `Worker.handle` runs its
  turn; measured from the call until the agent is entered (it then asks again, ending the turn);
- a resubscribe from the last event (`TaskStreams.resubscribe` with ``Last-Event-ID`` of the last
  event, read to its end: the task is in input-required, so it yields that status and ends).

DynamoDB read units are computed from the items each Query/GetItem/BatchGetItem returns, as
DynamoDB bills strongly consistent reads (a Query: the summed item sizes in 4 KB units, at least
one; GetItem and BatchGetItem: each item in 4 KB units), the way `bench/aws_cost.py` does: moto's
own ``ConsumedCapacity`` is a constant (1.0 per Query, 0.5 per GetItem), not a measurement.

    .venv/bin/python bench/task_reads.py [--sizes 1,100,1000,10000] [--repeat 5] [--backend local|memory]
        [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import statistics
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402
from a2a_core.core.broker import RunOperation  # noqa: E402
from a2a_core.core.caller import Caller  # noqa: E402
from a2a_core.core.requests import TaskQuery, TaskRef  # noqa: E402
from a2a_core.core.streams import TaskStreams  # noqa: E402
from a2a_core.core.tasklog.changes import Change, Decide, status  # noqa: E402
from a2a_core.core.tasklog.ledger import TaskLedger  # noqa: E402
from a2a_core.core.tasklog.records import ArtifactUpdated, MessageAdded, RunLease  # noqa: E402
from a2a_core.core.turn.executor import TaskContext, as_executor  # noqa: E402
from a2a_core.dev import DevStack  # noqa: E402
from a2a_core.dev.stack import build_dev_stack  # noqa: E402
from a2a_core.domain import (  # noqa: E402
    Artifact,
    Message,
    Role,
    TaskState,
    TextPart,
)
from a2a_core.settings import Settings  # noqa: E402
from aws_cost import item_size  # noqa: E402

TARGETS = {"ratio_to_one_commit": 2.0, "read_units_history_10": 3}
CALLER = Caller()
READS = ("Query", "GetItem", "BatchGetItem", "Scan")


class BenchmarkError(RuntimeError):
    """A read returned something the workload did not write; its timing would be meaningless."""


@dataclass
class ReadMeter:
    """DynamoDB read calls and the read units they would be billed (strongly consistent)."""

    calls: Counter[str] = field(default_factory=Counter)
    units: float = 0.0

    def attach(self, client: Any) -> None:
        client.meta.events.register("after-call.dynamodb.*", self._response)

    def _response(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name not in READS:
            return
        self.calls[model.name] += 1
        if model.name == "BatchGetItem":
            items = [item for table in (parsed.get("Responses") or {}).values() for item in table]
            self.units += sum(max(1, math.ceil(item_size(item) / 4096)) for item in items)
            return
        items = parsed.get("Items") or ([parsed["Item"]] if parsed.get("Item") else [])
        self.units += max(1, math.ceil(sum(item_size(item) for item in items) / 4096))

    def reading(self) -> tuple[int, float]:
        return sum(self.calls.values()), self.units


@dataclass
class Sample:
    seconds: list[float] = field(default_factory=list)
    calls: int = 0
    units: float = 0.0

    def add(self, seconds: float, before: tuple[int, float], after: tuple[int, float]) -> None:
        # Read counts of the first run: later ones find the task a turn (3 commits) longer.
        if not self.seconds:
            self.calls, self.units = after[0] - before[0], after[1] - before[1]
        self.seconds.append(seconds)

    def summary(self) -> dict[str, float]:
        return {
            "ms": round(statistics.median(self.seconds) * 1000, 2),
            "read_units": self.units,
            "read_calls": self.calls,
        }


# --- the workload -------------------------------------------------------------------------------


def user_message(text: str, task_id: str) -> Message:
    return Message(role=Role.user, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()), task_id=task_id)


def agent_message(text: str, task_id: str) -> Message:
    return Message(
        role=Role.agent, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()), task_id=task_id
    )


def answer(turn: int, *, append: bool) -> ArtifactUpdated:
    text = f"Part {'two' if append else 'one'} of the answer to question {turn}. "
    artifact = Artifact(artifact_id="answer", name="answer", parts=[TextPart(text=text)])
    return ArtifactUpdated(seq=0, artifact=artifact, append=append, last_chunk=append or None)


def always(change: Change) -> Decide:
    return lambda _head: change


def turn_changes(task_id: str, turn: int, run_id: str) -> list[Change]:
    """The commits of one turn after the API's continuation: claim, two chunks, the question."""
    lease = RunLease(run_id=run_id, lease_until=time.time() + 900, attempt=1)
    question = agent_message(f"Here is answer {turn}; what would you like to know next?", task_id)
    return [
        Change([status(TaskState.working)], run=lease),
        Change([answer(turn, append=False)]),
        Change([answer(turn, append=True)]),
        Change([status(TaskState.input_required, question)]),
    ]


async def build_task(ledger: TaskLedger, commits: int) -> str:
    """A task of exactly ``commits`` commits: created, then turns of 5 commits (4 for the first,
    which needs no continuation), each ending in input-required."""
    if commits != 1 and commits % 5:
        raise BenchmarkError(f"{commits} commits: sizes are 1 or a multiple of 5")
    task_id = str(uuid.uuid4())
    first = user_message("Question 0: what is this task about?", task_id)
    await ledger.create(task_id=task_id, context_id=f"ctx-{task_id}", message=first, run_id=first.message_id)
    head = await ledger.head(task_id)
    written, turn = 1, 0
    while written < commits:
        if turn == 0:
            changes = turn_changes(task_id, turn, first.message_id)
        else:
            ask = user_message(f"Question {turn}: and then?", task_id)
            continuation = Change(
                [MessageAdded(seq=0, message=ask), status(TaskState.working)],
                run=RunLease(run_id=ask.message_id),
            )
            changes = [continuation, *turn_changes(task_id, turn, ask.message_id)]
        for change in changes:
            commit = await ledger.write(task_id, always(change), head=head)
            assert commit is not None
            head, written = commit, written + 1
        turn += 1
    return task_id


# --- the measurements ---------------------------------------------------------------------------


class TurnProbe:
    """The agent of the measured turns: notes when it was entered, then asks again."""

    def __init__(self) -> None:
        self.entered: float | None = None
        self.reading: tuple[int, float] | None = None
        self.meter: ReadMeter | None = None

    async def __call__(self, ctx: TaskContext) -> None:
        self.entered = time.perf_counter()
        assert self.meter is not None
        self.reading = self.meter.reading()
        if ctx.message.role != Role.user or not ctx.text.startswith(("Measured", "Question 0")):
            raise BenchmarkError(f"the turn started on {ctx.message}")
        await ctx.ask("What next?")


async def measure(
    stack: DevStack, probe: TurnProbe, meter: ReadMeter, task_id: str, repeat: int
) -> dict[str, Any]:
    engine = stack.service.engine
    samples = {
        name: Sample() for name in ("get_history_1", "get_history_10", "worker_turn_start", "resubscribe")
    }
    for _ in range(repeat):
        for length in (1, 10):
            before, started = meter.reading(), time.perf_counter()
            task = await engine.get_task(TaskQuery(task_id, history_length=length), CALLER)
            samples[f"get_history_{length}"].add(time.perf_counter() - started, before, meter.reading())
            if not 0 < len(task.history or []) <= length:
                raise BenchmarkError(f"historyLength {length} gave {len(task.history or [])} messages")

        # The API continues the task (not measured); the worker's turn start is.
        ask = user_message("Measured question: one more?", task_id)
        if task.status.state == TaskState.input_required:
            continuation = Change(
                [MessageAdded(seq=0, message=ask), status(TaskState.working)],
                run=RunLease(run_id=ask.message_id),
            )
            await stack.service.ledger.write(task_id, always(continuation))
            run_id = ask.message_id
        else:  # the one-commit task: its first turn is still to run
            run = (await stack.service.ledger.head(task_id)).run
            run_id = run.run_id if run else ""
        before, started = meter.reading(), time.perf_counter()
        await stack.worker.handle(RunOperation(task_id=task_id, run_id=run_id))
        if probe.entered is None or probe.reading is None:
            raise BenchmarkError("the worker did not run the agent")
        samples["worker_turn_start"].add(probe.entered - started, before, probe.reading)
        probe.entered = probe.reading = None

        head = await stack.service.ledger.head(task_id)
        streams = TaskStreams(engine)
        before, started = meter.reading(), time.perf_counter()
        events = await streams.resubscribe(TaskRef(task_id), Caller(last_event_id=str(head.last_seq)))
        items = [item async for item in events]
        samples["resubscribe"].add(time.perf_counter() - started, before, meter.reading())
        if len(items) != 1 or getattr(items[0].result, "final", None) is not True:
            raise BenchmarkError(f"resubscribe from the last event gave {items}")
    return {name: sample.summary() for name, sample in samples.items()}


async def run(sizes: list[int], repeat: int, backend: str) -> list[dict[str, Any]]:
    probe = TurnProbe()
    stack = build_dev_stack(Settings(backend=backend, name="bench"), as_executor(probe))
    meter = ReadMeter()
    if stack.emulator is not None:
        meter.attach(stack.emulator.clients.dynamodb)
    probe.meter = meter
    results = []
    try:
        # Every task first, then every measurement: moto's Query scans the whole table, so each
        # size is measured on the same table (see the README).
        tasks = []
        for size in sizes:
            started = time.perf_counter()
            tasks.append(await build_task(stack.service.ledger, size))
            print(f"  {size} commits: built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        for size, task_id in zip(sizes, tasks, strict=True):
            results.append({"commits": size, **await measure(stack, probe, meter, task_id, repeat)})
            print(f"  {size} commits: measured", file=sys.stderr)
    finally:
        if stack.emulator is not None:
            stack.emulator.stop()
    return results


def print_report(results: list[dict[str, Any]], repeat: int, backend: str) -> None:
    where = "the local stack (moto)" if backend == "local" else "the memory backend"
    print(f"task reads on {where}, median of {repeat}; read units = DynamoDB RCUs (strongly consistent)\n")
    names = ("get_history_1", "get_history_10", "worker_turn_start", "resubscribe")
    header = "| commits | " + " | ".join(f"{n} ms / RU (calls)" for n in names) + " |"
    print(header)
    print("|---:|" + "---|" * len(names))
    for result in results:
        cells = [
            f"{result[n]['ms']:.1f} / {result[n]['read_units']:g} ({result[n]['read_calls']})" for n in names
        ]
        print(f"| {result['commits']:,} | " + " | ".join(cells) + " |")
    base, last = results[0], results[-1]
    print()
    for name in names:
        ratio_ms = last[name]["ms"] / base[name]["ms"] if base[name]["ms"] else float("inf")
        ratio_ru = (
            last[name]["read_units"] / base[name]["read_units"] if base[name]["read_units"] else float("inf")
        )
        ok = max(ratio_ms, ratio_ru) <= TARGETS["ratio_to_one_commit"]
        print(
            f"  {name}: {last['commits']:,} vs {base['commits']:,} commits: x{ratio_ms:.2f} time, "
            f"x{ratio_ru:.2f} read units   target <= x{TARGETS['ratio_to_one_commit']:g} "
            f"{'PASS' if ok else 'MISS'}"
        )
    worst = max(r[n]["read_units"] for r in results for n in ("get_history_1", "get_history_10"))
    verdict = "PASS" if worst <= TARGETS["read_units_history_10"] else "MISS"
    print(f"  tasks/get read units, historyLength <= 10: at most {worst:g}   target <= 3 {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1,100,1000,10000", help="commits per task, comma-separated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--backend", choices=["local", "memory"], default="local", help="memory: wall time only"
    )
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser, sizes="1,5", repeat=1)
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.repeat < 1 or any(size < 1 for size in sizes):
        parser.error("--repeat and sizes must be >= 1")
    logging.basicConfig(level=logging.WARNING)
    results = asyncio.run(run(sizes, args.repeat, args.backend))
    if args.json:
        payload = {
            "benchmark": "task_reads",
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "results": results,
        }
        print(json.dumps(payload, indent=2))
    else:
        print_report(results, args.repeat, args.backend)


if __name__ == "__main__":
    main()
