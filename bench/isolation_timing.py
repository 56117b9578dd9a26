"""Per-caller isolation, timed: does another caller's task answer as fast as one that does not exist?

A task someone else owns must be refused exactly like an unknown id (-32001), and in the same
time: if the server reads the task before it checks the owner, the refusal of a real task takes
longer (and longer still for a large one), which tells a caller which ids exist. Issue 22 item 8
measured 8.7 ms for another caller's task against 4.6 ms for an unknown id on the moto backend.

The dev stack on the local backend (moto's real server in this process, the DynamoDB task store)
is built once, with no HTTP; tasks are written through the engine as caller ``alice``: a small one
(one message) and a large one (``--large-kb`` of text in its first message and in an artifact).
Then ``mallory`` asks for each, and for ids nobody created, ``--samples`` times each, interleaved,
through each surface that checks ownership:

- ``get``: `TaskEngine.get_task` (GetTask, tasks/get);
- ``cancel``: `TaskEngine.cancel_task` (CancelTask, tasks/cancel);
- ``push_list``: `PushConfigService.list` (ListTaskPushNotificationConfigs);
- ``subscribe``: `TaskStreams.subscribe` (SubscribeToTask), up to its refusal.

Every one must raise TaskNotFoundError. Reported per surface: the median wall time for a foreign
small task, a foreign large task and an unknown id, and the DynamoDB calls and read units of one
refusal of each (read units computed from the items returned, as `bench/task_reads.py` does).

    .venv/bin/python bench/isolation_timing.py [--samples 150] [--large-kb 190] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402
from a2a_core.core.caller import Caller  # noqa: E402
from a2a_core.core.errors import TaskNotFoundError  # noqa: E402
from a2a_core.core.requests import PushConfigQuery, SendRequest, TaskQuery, TaskRef  # noqa: E402
from a2a_core.core.streams import TaskStreams  # noqa: E402
from a2a_core.core.tasklog.changes import Change  # noqa: E402
from a2a_core.core.tasklog.records import ArtifactUpdated  # noqa: E402
from a2a_core.core.turn.executor import as_executor  # noqa: E402
from a2a_core.dev.stack import build_dev_stack  # noqa: E402
from a2a_core.domain import Artifact, Message, Role, TextPart  # noqa: E402
from a2a_core.settings import Settings  # noqa: E402
from task_reads import ReadMeter  # noqa: E402

ALICE, MALLORY = (
    Caller(principal="jwt:https://issuer/|alice"),
    Caller(principal="jwt:https://issuer/|mallory"),
)
KINDS = ("foreign_small", "foreign_large", "unknown")
Surface = Callable[[str], Awaitable[object]]


async def echo(ctx: Any) -> None:
    raise AssertionError("no turn runs in this benchmark")


async def create(stack: Any, text: str, artifact_text: str | None) -> str:
    message = Message(role=Role.user, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()))
    task = await stack.service.engine.send_message(SendRequest(message=message, blocking=False), ALICE)
    if artifact_text is not None:  # as a worker would write it: a large answer
        artifact = Artifact(artifact_id="answer", parts=[TextPart(text=artifact_text)])
        change = ArtifactUpdated(seq=0, artifact=artifact)
        await stack.service.ledger.write(task.id, lambda _head: Change([change]))
    return str(task.id)


def surfaces(stack: Any) -> dict[str, Surface]:
    service = stack.service
    follow = TaskStreams(service.engine)

    async def subscribe(task_id: str) -> object:
        return await follow.subscribe(TaskRef(task_id), MALLORY)  # refused before the stream starts

    assert service.push is not None
    push = service.push
    return {
        "get": lambda task_id: service.engine.get_task(TaskQuery(task_id), MALLORY),
        "cancel": lambda task_id: service.engine.cancel_task(TaskRef(task_id), MALLORY),
        "push_list": lambda task_id: push.list(PushConfigQuery(task_id), MALLORY),
        "subscribe": subscribe,
    }


async def refused(call: Surface, task_id: str) -> float:
    start = time.perf_counter()
    try:
        await call(task_id)
    except TaskNotFoundError:
        return time.perf_counter() - start
    raise AssertionError(f"{task_id} was served to another caller")


async def run(samples: int, large_kb: int) -> dict[str, Any]:
    settings = Settings(backend="local", name="bench", push_enabled=True, allow_unauthenticated=True)
    stack = build_dev_stack(settings, as_executor(echo))
    meter = ReadMeter()
    assert stack.emulator is not None
    meter.attach(stack.emulator.clients.dynamodb)
    try:
        big = "x" * (large_kb * 512)  # half in the first message, half in an artifact
        tasks = {
            "foreign_small": await create(stack, "hello", None),
            "foreign_large": await create(stack, big, big),
        }
        results: dict[str, Any] = {}
        for name, call in surfaces(stack).items():
            times: dict[str, list[float]] = {kind: [] for kind in KINDS}
            reads: dict[str, dict[str, float]] = {}
            for kind in KINDS:  # one refusal each, metered
                task_id = tasks.get(kind) or str(uuid.uuid4())
                before = meter.reading()
                await refused(call, task_id)
                after = meter.reading()
                reads[kind] = {"read_calls": after[0] - before[0], "read_units": after[1] - before[1]}
            for _ in range(samples):  # interleaved, so load on the machine hits each alike
                for kind in KINDS:
                    times[kind].append(await refused(call, tasks.get(kind) or str(uuid.uuid4())))
            results[name] = {
                kind: {"ms": round(statistics.median(times[kind]) * 1000, 2), **reads[kind]} for kind in KINDS
            }
        return results
    finally:
        stack.emulator.stop()


def print_report(results: dict[str, Any], samples: int, large_kb: int) -> None:
    print(f"Refusing another caller's task vs an unknown id (local backend, moto; median of {samples})")
    print(f"large task: {large_kb} KB of text (first message and an artifact)\n")
    print("| surface | foreign small ms (calls/RU) | foreign large ms (calls/RU) | unknown ms (calls/RU) |")
    print("|---|---:|---:|---:|")
    for name, kinds in results.items():
        cells = [f"{k['ms']:.2f} ({k['read_calls']}/{k['read_units']:g})" for k in (kinds[n] for n in KINDS)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    equal = all(
        (kinds[k]["read_calls"], kinds[k]["read_units"])
        == (kinds["unknown"]["read_calls"], kinds["unknown"]["read_units"])
        for kinds in results.values()
        for k in KINDS
    )
    print(
        f"\n  same reads for a foreign task and an unknown id on every surface: {'PASS' if equal else 'MISS'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=150, help="refusals timed per surface and kind")
    parser.add_argument("--large-kb", type=int, default=190, help="size of the large task's content")
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser, samples=2, large_kb=8)
    if args.samples < 1 or args.large_kb < 1:
        parser.error("--samples and --large-kb must be >= 1")
    logging.basicConfig(level=logging.WARNING)
    results = asyncio.run(run(args.samples, args.large_kb))
    if args.json:
        payload = {"benchmark": "isolation_timing", "python": sys.version.split()[0], "cpus": os.cpu_count()}
        print(
            json.dumps(
                {**payload, "samples": args.samples, "large_kb": args.large_kb, "results": results}, indent=2
            )
        )
    else:
        print_report(results, args.samples, args.large_kb)


if __name__ == "__main__":
    main()
