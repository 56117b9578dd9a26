"""Warm latency: per-invocation cost of the API Lambda handler once the process is up, in each
protocol, against a2a-sdk 1.3's own server in the same run.

In one process, a handler module is imported (building the app), then ``handler(event, context)``
is called directly with API Gateway REST (v1 proxy) events, exactly as the Lambda runtime would.
Each iteration sends a message without waiting for the agent (unique ``messageId``) and then gets
the returned task, in one protocol (`workloads`): JSON-RPC 0.3 (``message/send`` + ``tasks/get``),
JSON-RPC 1.0 (``SendMessage`` + ``GetTask``) or HTTP+JSON 1.0 (``POST /message:send`` +
``GET /tasks/{id}``). Each call is timed on its own, wall clock (``perf_counter_ns``) and this
process's CPU time (``process_time_ns``); event construction and response checks are outside the
timed region, and every answer is checked (HTTP 200, the protocol's shape, the right task).

The same workloads run against a2a-sdk 1.3's in-memory server (``bench/sdk_handler.py``) behind
the same Mangum adapter. Every (protocol, server) pair gets a freshly imported handler; with
``--rounds N`` the pairs run N times, interleaved, and each statistic is the median over rounds.

    .venv/bin/python bench/warm_latency.py [--iterations 2000] [--warmup 200] [--rounds 3]
        [--protocol all|0.3|1.0|1.0-jsonrpc|1.0-rest] [--server both|ours|a2a-sdk] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import smoke
from lambda_events import FakeLambdaContext
from warm_report import (
    TARGET_MS,
    TARGET_RATIO,
    ServerResult,
    Stats,
    Timings,
    median_result,
    print_report,
    ratios,
)
from workloads import WORKLOADS, BenchmarkError, Workload

ROOT = Path(__file__).resolve().parents[1]
SERVERS: dict[str, Path] = {
    "ours": ROOT / "src" / "a2a_core" / "functions" / "api" / "handler.py",
    "a2a-sdk": ROOT / "bench" / "sdk_handler.py",
}
PROTOCOL_CHOICES = {"all": list(WORKLOADS), "1.0": ["1.0-jsonrpc", "1.0-rest"]} | {
    name: [name] for name in WORKLOADS
}

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
__all__ = ["BenchmarkError", "main"]


def load_handler(label: str) -> tuple[str, ModuleType]:
    name = f"_bench_handler_{label.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, SERVERS[label])
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    os.environ.setdefault("A2A_ALLOW_UNAUTHENTICATED", "true")  # the handler's open mode, as before auth
    spec.loader.exec_module(module)
    return name, module


def queue_drainer(module: ModuleType) -> Callable[[], None] | None:
    """For ``--drain-queue``: empty our in-memory broker the way a worker would (untimed)."""
    from a2a_core.core.broker import InMemoryBroker

    service = getattr(module, "service", None)
    broker = getattr(getattr(service, "engine", None), "broker", None) or getattr(module, "broker", None)
    if not isinstance(broker, InMemoryBroker):
        return None
    queue = broker

    async def receive_all() -> None:
        while len(queue):
            await queue.receive(timeout=0)

    def drain() -> None:
        asyncio.get_event_loop().run_until_complete(receive_all())

    return drain


def timed(handler: Handler, event: dict[str, Any], context: Any) -> tuple[dict[str, Any], int, int]:
    """The answer, and the call's wall and CPU nanoseconds (the CPU clock read outside the wall
    clock's interval)."""
    cpu = time.process_time_ns()
    start = time.perf_counter_ns()
    response = handler(event, context)
    end = time.perf_counter_ns()
    cpu_end = time.process_time_ns()
    return response, end - start, cpu_end - cpu


def run_workload(
    handler: Handler,
    workload: Workload,
    iterations: int,
    warmup: int,
    drain: Callable[[], None] | None = None,
) -> ServerResult:
    context = FakeLambdaContext()
    wall: dict[str, list[int]] = {"send": [], "get": []}
    cpu: dict[str, list[int]] = {"send": [], "get": []}
    rpc_id = 0
    task_id = ""
    for i in range(warmup + iterations):
        rpc_id += 1
        event, message_id = workload.send(rpc_id)
        response, send_wall, send_cpu = timed(handler, event, context)
        task_id = workload.sent(response, rpc_id, message_id)["id"]

        rpc_id += 1
        response, get_wall, get_cpu = timed(handler, workload.get(rpc_id, task_id), context)
        workload.got(response, rpc_id, task_id)

        if drain is not None:
            drain()
        if i >= warmup:
            for kind, w, c in (("send", send_wall, send_cpu), ("get", get_wall, get_cpu)):
                wall[kind].append(w)
                cpu[kind].append(c)

    loop = asyncio.get_event_loop()  # Mangum's loop: anything it left behind still pending?
    pending = sum(1 for task in asyncio.all_tasks(loop) if not task.done())
    loop.run_until_complete(asyncio.sleep(0.05))
    rpc_id += 1
    final = workload.got(handler(workload.get(rpc_id, task_id), context), rpc_id, task_id)

    per_iteration = [s + g for s, g in zip(wall["send"], wall["get"], strict=True)]
    tenth = max(1, len(per_iteration) // 10)
    return ServerResult(
        send=Timings(Stats.of(wall["send"]), Stats.of(cpu["send"])),
        get=Timings(Stats.of(wall["get"]), Stats.of(cpu["get"])),
        combined=Timings(Stats.of(wall["send"] + wall["get"]), Stats.of(cpu["send"] + cpu["get"])),
        first_tenth_mean_ms=sum(per_iteration[:tenth]) / tenth / 2 / 1e6,
        last_tenth_mean_ms=sum(per_iteration[-tenth:]) / tenth / 2 / 1e6,
        pending_loop_tasks=pending,
        last_task_state=str(final["status"]["state"]),
    )


def measure(label: str, workload: Workload, iterations: int, warmup: int, drain_queue: bool) -> ServerResult:
    name, module = load_handler(label)
    handler: Handler = module.handler
    drain = queue_drainer(module) if drain_queue else None
    try:
        return run_workload(handler, workload, iterations, warmup, drain)
    finally:  # drop the server's state so it does not weigh on the next one (GC, memory)
        del handler, module, drain
        sys.modules.pop(name, None)
        gc.collect()


def run_rounds(
    protocols: list[str], labels: list[str], rounds: int, iterations: int, warmup: int, drain_queue: bool
) -> dict[str, dict[str, list[ServerResult]]]:
    """protocol -> server -> one result per round; the servers alternate who goes first."""
    results: dict[str, dict[str, list[ServerResult]]] = {
        p: {label: [] for label in labels} for p in protocols
    }
    for round_ in range(rounds):
        for protocol in protocols:
            order = labels if round_ % 2 == 0 else labels[::-1]
            for label in order:
                result = measure(label, WORKLOADS[protocol], iterations, warmup, drain_queue)
                results[protocol][label].append(result)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--iterations", type=int, default=2000, help="measured iterations per server and round"
    )
    parser.add_argument("--warmup", type=int, default=200, help="warm-up iterations, not measured")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every (protocol, server); medians")
    parser.add_argument("--protocol", choices=list(PROTOCOL_CHOICES), default="all")
    parser.add_argument("--server", choices=["both", *SERVERS], default="both")
    parser.add_argument(
        "--drain-queue",
        action="store_true",
        help="diagnostic: empty our in-memory broker after each iteration, outside the timed calls, "
        "as a worker would (by default nothing drains it and it grows)",
    )
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser, iterations=2, warmup=1, rounds=1)
    if args.iterations < 1 or args.warmup < 0 or args.rounds < 1:
        parser.error("--iterations and --rounds must be >= 1 and --warmup >= 0")

    labels = list(SERVERS) if args.server == "both" else [args.server]
    protocols = PROTOCOL_CHOICES[args.protocol]
    load_before = os.getloadavg()[0]
    rounds = run_rounds(protocols, labels, args.rounds, args.iterations, args.warmup, args.drain_queue)
    medians = {
        p: {label: median_result(rs) for label, rs in by_server.items()} for p, by_server in rounds.items()
    }
    load_after = os.getloadavg()[0]
    if not args.json:
        print_report(medians, args, load_before, load_after)
        return
    payload: dict[str, Any] = {
        "benchmark": "warm_latency",
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_average": [load_before, load_after],
        "target_ms": TARGET_MS,
        "target_ratio_v1": TARGET_RATIO,
        "iterations": args.iterations,
        "warmup": args.warmup,
        "rounds": args.rounds,
        "drain_queue": args.drain_queue,
        "protocols": {
            protocol: {
                "servers": {
                    label: {"median": asdict(medians[protocol][label]), "rounds": [asdict(r) for r in rs]}
                    for label, rs in by_server.items()
                },
                "ratio_sdk_over_ours": ratios(medians[protocol]),
            }
            for protocol, by_server in rounds.items()
        },
    }
    print(json.dumps(payload, indent=2))


if __name__ == "__main__":
    main()
