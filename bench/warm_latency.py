"""Warm latency: per-invocation cost of the API Lambda handler once the process is up.

In one process, the handler module is imported (building the app), then ``handler(event,
context)`` is called directly with API Gateway REST (v1 proxy) events, exactly as the Lambda
runtime would. Each iteration is a ``message/send`` with ``configuration.blocking = false``
(unique ``messageId``) followed by ``tasks/get`` of the returned task; each call is timed on its
own with ``perf_counter_ns``. Event construction and response checks are outside the timed
region; every response must be a JSON-RPC success carrying the request's id and a task.

The same workload then runs against a2a-sdk 1.3's in-memory server (``bench/sdk_handler.py``)
behind the same Mangum adapter; it answers these 0.3 requests through its 0.3 compatibility layer.

    .venv/bin/python bench/warm_latency.py [--iterations 2000] [--warmup 200] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import json
import math
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 1.0
DOMAIN = "abc123def4.execute-api.us-east-1.amazonaws.com"

SERVERS: dict[str, Path] = {
    "ours": ROOT / "functions" / "api" / "handler.py",
    "a2a-sdk": ROOT / "bench" / "sdk_handler.py",
}

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


class BenchmarkError(RuntimeError):
    """A response was not what the workload expects; the timing would be meaningless."""


@dataclass
class FakeLambdaContext:
    """What the Lambda runtime passes as ``context`` (the attributes Mangum's types declare)."""

    aws_request_id: str = "00000000-0000-0000-0000-000000000000"
    function_name: str = "a2a-api"
    function_version: str = "$LATEST"
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:a2a-api"
    memory_limit_in_mb: int = 1024
    log_group_name: str = "/aws/lambda/a2a-api"
    log_stream_name: str = "2025/01/01/[$LATEST]0123456789abcdef0123456789abcdef"
    identity: Any = None
    client_context: Any = None
    deadline_ms: int = field(default_factory=lambda: int(time.time() * 1000) + 30_000)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, self.deadline_ms - int(time.time() * 1000))


def rest_event(body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """An API Gateway REST API proxy-integration event (payload format 1.0) for ``POST /``."""
    headers = {
        "accept": "application/json",
        "content-type": "application/json",
        "Host": DOMAIN,
        "User-Agent": "a2a-bench/1.0",
        "X-Amzn-Trace-Id": f"Root=1-00000000-{request_id.replace('-', '')[:24]}",
        "X-Forwarded-For": "203.0.113.10",
        "X-Forwarded-Port": "443",
        "X-Forwarded-Proto": "https",
    }
    now = time.time()
    return {
        "resource": "/",
        "path": "/",
        "httpMethod": "POST",
        "headers": headers,
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": "abcdef1234",
            "resourcePath": "/",
            "httpMethod": "POST",
            "extendedRequestId": request_id[:16],
            "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "path": "/prod/",
            "accountId": "123456789012",
            "protocol": "HTTP/1.1",
            "stage": "prod",
            "domainPrefix": DOMAIN.split(".")[0],
            "requestTimeEpoch": int(now * 1000),
            "requestId": request_id,
            "identity": {"sourceIp": "203.0.113.10", "userAgent": "a2a-bench/1.0"},
            "domainName": DOMAIN,
            "apiId": DOMAIN.split(".")[0],
        },
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }


def http_event(body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """An API Gateway HTTP API proxy-integration event (payload format 2.0) for ``POST /``."""
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "ANY /",
        "rawPath": "/",
        "rawQueryString": "",
        "headers": {
            "accept": "application/json",
            "content-type": "application/json",
            "host": DOMAIN,
            "user-agent": "a2a-bench/1.0",
            "x-amzn-trace-id": f"Root=1-00000000-{request_id.replace('-', '')[:24]}",
            "x-forwarded-for": "203.0.113.10",
            "x-forwarded-port": "443",
            "x-forwarded-proto": "https",
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": DOMAIN.split(".")[0],
            "domainName": DOMAIN,
            "domainPrefix": DOMAIN.split(".")[0],
            "http": {
                "method": "POST",
                "path": "/",
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.10",
                "userAgent": "a2a-bench/1.0",
            },
            "requestId": request_id,
            "routeKey": "ANY /",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }


def send_body(rpc_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rpc_id,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": str(uuid.uuid4()),
                "parts": [{"kind": "text", "text": "hello, benchmark"}],
            },
            "configuration": {"blocking": False, "acceptedOutputModes": ["text/plain"]},
        },
    }


def get_body(rpc_id: int, task_id: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "method": "tasks/get", "params": {"id": task_id}}


def task_from(response: dict[str, Any], rpc_id: int, method: str) -> dict[str, Any]:
    """The task in a successful JSON-RPC response, or `BenchmarkError` saying what came back."""
    if response.get("statusCode") != 200:
        raise BenchmarkError(f"{method}: HTTP {response.get('statusCode')}: {response.get('body')!r}")
    payload = json.loads(response["body"])
    if payload.get("jsonrpc") != "2.0" or payload.get("id") != rpc_id or "error" in payload:
        raise BenchmarkError(f"{method}: not a JSON-RPC success for id {rpc_id}: {payload}")
    result = payload.get("result")
    if not isinstance(result, dict) or result.get("kind") != "task" or not result.get("id"):
        raise BenchmarkError(f"{method}: result is not a task with an id: {payload}")
    return result


@dataclass(frozen=True)
class Stats:
    n: int
    mean_ms: float
    p50_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of(cls, samples_ns: list[int]) -> Stats:
        ordered = sorted(samples_ns)

        def rank(p: float) -> float:  # nearest-rank percentile
            return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)] / 1e6

        return cls(len(ordered), statistics.fmean(ordered) / 1e6, rank(50), rank(99), ordered[-1] / 1e6)


@dataclass(frozen=True)
class ServerResult:
    send: Stats
    get: Stats
    combined: Stats
    first_tenth_mean_ms: float  # combined mean over the first 10% of measured iterations
    last_tenth_mean_ms: float  # ... and over the last 10%: drift as state accumulates
    pending_loop_tasks: int  # asyncio tasks left on the loop when the workload ends
    last_task_state: str  # state of the last task, read after the loop was given time to drain


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
    broker = getattr(getattr(service, "engine", None), "broker", None)
    if not isinstance(broker, InMemoryBroker):
        return None
    queue = broker

    async def receive_all() -> None:
        while len(queue):
            await queue.receive(timeout=0)

    def drain() -> None:
        asyncio.get_event_loop().run_until_complete(receive_all())

    return drain


def run_workload(
    handler: Handler, iterations: int, warmup: int, drain: Callable[[], None] | None = None
) -> ServerResult:
    context = FakeLambdaContext()
    send_ns: list[int] = []
    get_ns: list[int] = []
    rpc_id = 0
    task_id = ""
    for i in range(warmup + iterations):
        rpc_id += 1
        event = rest_event(send_body(rpc_id), str(uuid.uuid4()))
        start = time.perf_counter_ns()
        response = handler(event, context)
        sent = time.perf_counter_ns() - start
        task_id = task_from(response, rpc_id, "message/send")["id"]

        rpc_id += 1
        event = rest_event(get_body(rpc_id, task_id), str(uuid.uuid4()))
        start = time.perf_counter_ns()
        response = handler(event, context)
        got = time.perf_counter_ns() - start
        if task_from(response, rpc_id, "tasks/get")["id"] != task_id:
            raise BenchmarkError(f"tasks/get returned another task than {task_id}")

        if drain is not None:
            drain()
        if i >= warmup:
            send_ns.append(sent)
            get_ns.append(got)

    loop = asyncio.get_event_loop()  # Mangum's loop: anything it left behind still pending?
    pending = sum(1 for task in asyncio.all_tasks(loop) if not task.done())
    loop.run_until_complete(asyncio.sleep(0.05))
    rpc_id += 1
    final = handler(rest_event(get_body(rpc_id, task_id), str(uuid.uuid4())), context)
    last_state = str(task_from(final, rpc_id, "tasks/get")["status"]["state"])

    per_iteration = [s + g for s, g in zip(send_ns, get_ns, strict=True)]
    tenth = max(1, len(per_iteration) // 10)
    return ServerResult(
        send=Stats.of(send_ns),
        get=Stats.of(get_ns),
        combined=Stats.of(send_ns + get_ns),
        first_tenth_mean_ms=statistics.fmean(per_iteration[:tenth]) / 2 / 1e6,
        last_tenth_mean_ms=statistics.fmean(per_iteration[-tenth:]) / 2 / 1e6,
        pending_loop_tasks=pending,
        last_task_state=last_state,
    )


def measure(label: str, iterations: int, warmup: int, drain_queue: bool) -> ServerResult:
    name, module = load_handler(label)
    handler: Handler = module.handler
    drain = queue_drainer(module) if drain_queue else None
    try:
        return run_workload(handler, iterations, warmup, drain)
    finally:  # drop the server's state so it does not weigh on the next one (GC, memory)
        del handler, module, drain
        sys.modules.pop(name, None)
        gc.collect()


def verdict(ms: float) -> str:
    return "PASS" if ms <= TARGET_MS else "MISS"


def print_report(results: dict[str, ServerResult], iterations: int, warmup: int, drain_queue: bool) -> None:
    print(
        f"warm latency: {iterations} iterations of message/send (blocking=false) + tasks/get, "
        f"{warmup} warm-up iterations excluded; handler(event, context) via Mangum, REST v1 events"
    )
    queue = "drained after each iteration (untimed)" if drain_queue else "never drained (grows)"
    print(f"our in-memory broker queue: {queue}")
    print()
    header = f"{'server':<9} {'method':<14} {'n':>6} {'mean ms':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"
    print(header)
    print("-" * len(header))
    for label, result in results.items():
        for method, stats in (
            ("message/send", result.send),
            ("tasks/get", result.get),
            ("per call", result.combined),
        ):
            print(
                f"{label:<9} {method:<14} {stats.n:>6} {stats.mean_ms:>9.3f} {stats.p50_ms:>8.3f} "
                f"{stats.p99_ms:>8.3f} {stats.max_ms:>8.3f}"
            )
    print()
    for label, result in results.items():
        c = result.combined
        print(
            f"{label}: target <= {TARGET_MS:.1f} ms per call: mean {c.mean_ms:.3f} ms "
            f"{verdict(c.mean_ms)}, p99 {c.p99_ms:.3f} ms {verdict(c.p99_ms)}"
        )
        print(
            f"  drift (mean per call): first 10% {result.first_tenth_mean_ms:.3f} ms, "
            f"last 10% {result.last_tenth_mean_ms:.3f} ms; asyncio tasks pending on the loop after "
            f"the last call: {result.pending_loop_tasks}; last task's state once drained: "
            f"{result.last_task_state}"
        )
    if {"ours", "a2a-sdk"} <= results.keys():
        ours, sdk = results["ours"], results["a2a-sdk"]
        print()
        print("ratio a2a-sdk / ours:")
        for method, ours_stats, sdk_stats in (
            ("message/send", ours.send, sdk.send),
            ("tasks/get", ours.get, sdk.get),
            ("per call", ours.combined, sdk.combined),
        ):
            print(
                f"  {method:<14} mean {sdk_stats.mean_ms / ours_stats.mean_ms:5.2f}x   "
                f"p99 {sdk_stats.p99_ms / ours_stats.p99_ms:5.2f}x"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--iterations", type=int, default=2000, help="measured iterations per server")
    parser.add_argument("--warmup", type=int, default=200, help="warm-up iterations, not measured")
    parser.add_argument("--server", choices=["both", *SERVERS], default="both")
    parser.add_argument(
        "--drain-queue",
        action="store_true",
        help="diagnostic: empty our in-memory broker after each iteration, outside the timed calls, "
        "as a worker would (by default nothing drains it and it grows)",
    )
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = parser.parse_args()
    if args.iterations < 1 or args.warmup < 0:
        parser.error("--iterations must be >= 1 and --warmup >= 0")

    labels = list(SERVERS) if args.server == "both" else [args.server]
    results = {label: measure(label, args.iterations, args.warmup, args.drain_queue) for label in labels}
    if args.json:
        payload: dict[str, Any] = {
            "benchmark": "warm_latency",
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "target_ms": TARGET_MS,
            "iterations": args.iterations,
            "warmup": args.warmup,
            "drain_queue": args.drain_queue,
            "servers": {
                label: {**asdict(result), "verdict": verdict(result.combined.mean_ms)}
                for label, result in results.items()
            },
        }
        if {"ours", "a2a-sdk"} <= results.keys():
            ours, sdk = results["ours"], results["a2a-sdk"]
            payload["ratio_sdk_over_ours"] = {
                "send_mean": sdk.send.mean_ms / ours.send.mean_ms,
                "get_mean": sdk.get.mean_ms / ours.get.mean_ms,
                "per_call_mean": sdk.combined.mean_ms / ours.combined.mean_ms,
                "per_call_p99": sdk.combined.p99_ms / ours.combined.p99_ms,
            }
        print(json.dumps(payload, indent=2))
    else:
        print_report(results, args.iterations, args.warmup, args.drain_queue)


if __name__ == "__main__":
    main()
