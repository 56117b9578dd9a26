"""Streaming: time to the first SSE event, events per second, DynamoDB reads per streamed event.

The dev server's stack (`a2a_core.dev.stack.build_dev_stack`: the API and a worker in one process) is
served by uvicorn on a free 127.0.0.1 port in this process, so the DynamoDB client of the moto
("local") backend can be metered with a botocore hook. The HTTP client runs in a child process
(this script with ``--client``), so parsing the streams does not compete with the server for
this process's GIL. Phases, per backend:

- first event: ``--requests`` message/stream calls in a row (after ``--warmup``), each to an
  agent that answers at once; timed from just before the request is sent to the moment the first
  SSE event (the Task) is parsed. Each stream is then read to its final event (untimed).
- burst: one message/stream to an agent that emits ``--chunks`` artifact chunks as fast as it
  can (yielding to the event loop after each one, as an agent awaiting tokens does); events per
  second over the stream, from its first event to its final one, plus how long after the agent's
  last write the final event reached the client (both clocks are CLOCK_MONOTONIC).
- replay: the burst's task once more, finished, with tasks/resubscribe and ``Last-Event-ID: 2``:
  the same events read back from the log, so the stream's own pace without the agent's writes.
- paced: one stream of ``--paced-chunks`` chunks written ``--paced-interval`` seconds apart: a
  token stream; reads per event when every event wakes the stream on its own.

DynamoDB reads are the Query/GetItem calls of the API side (the streams; the snapshot read of each
message/stream included), told from the worker's by a context variable set for each HTTP request.
A follower reads once per wake-up (the commits after the last one it saw), so the targets are at
most 1 read per event in a burst (a wake-up finds several) and 1.2 paced (one per event, plus the
stream's start and the polls that find nothing).

    .venv/bin/python bench/streaming.py [--backend both|memory|local] [--requests 50] [--warmup 5]
        [--chunks 5000] [--local-chunks 300] [--paced-chunks 100] [--paced-interval 0.01] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import logging
import math
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import smoke

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

TARGETS = {
    "first_event_p50_ms": 50.0,
    "events_per_second": 2000.0,
    # DynamoDB queries (API side) per streamed event on the local stack.
    "reads_per_event_burst": 1.0,
    "reads_per_event_paced": 1.2,
}
CLIENT_TIMEOUT = 120.0  # seconds for one client phase; the script never waits longer


class BenchmarkError(RuntimeError):
    """A stream was not what the workload expects; its timing would be meaningless."""


# --- the agent ----------------------------------------------------------------------------------

# When each burst/paced turn's agent started and finished writing (time.monotonic()), by text.
AGENT_TIMES: dict[str, tuple[float, float]] = {}


async def bench_agent(ctx: Any) -> str:
    """``first ...``: answer at once. ``burst N``: N chunks, no pause. ``paced N S``: N chunks,
    S seconds apart. Chunk i's text is ``str(i)``."""
    words = ctx.text.split()
    if words[0] == "first":
        return "ok"
    count = int(words[1])
    interval = float(words[2]) if words[0] == "paced" else 0.0
    started = time.monotonic()
    artifact_id: str | None = None
    for index in range(count):
        artifact_id = await ctx.artifact(
            str(index), artifact_id=artifact_id, append=index > 0, last_chunk=index == count - 1
        )
        await asyncio.sleep(interval)  # 0: only yield, as an agent awaiting its next token would
    AGENT_TIMES[ctx.text] = (started, time.monotonic())
    return "done"


# --- the client (child process) -----------------------------------------------------------------


def stream_body(text: str) -> dict[str, Any]:
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}]}
    return {
        "jsonrpc": "2.0",
        "id": str(uuid.uuid4()),
        "method": "message/stream",
        "params": {"message": message},
    }


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[int, dict[str, Any]]]:
    event_id: str | None = None
    data: str | None = None
    async for line in lines:
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data = line[5:].strip()
        elif not line and data is not None:
            if event_id is None:
                raise BenchmarkError(f"event without id: {data}")
            yield int(event_id), json.loads(data)
            event_id = data = None


def result_of(payload: dict[str, Any], request_id: str) -> dict[str, Any]:
    if payload.get("id") != request_id or "result" not in payload:
        raise BenchmarkError(f"not a result for {request_id}: {payload}")
    result: dict[str, Any] = payload["result"]
    return result


async def client_first_event(url: str, requests: int, warmup: int) -> dict[str, Any]:
    import httpx

    samples: list[float] = []
    async with httpx.AsyncClient(timeout=30.0) as http:
        for index in range(warmup + requests):
            body = stream_body(f"first {index}")
            started = time.perf_counter()
            async with http.stream("POST", url, json=body) as response:
                events = sse_events(response.aiter_lines())
                _, first = await anext(events)
                elapsed = time.perf_counter() - started
                last = first
                async for _, payload in events:
                    last = payload
            if result_of(first, body["id"])["kind"] != "task":
                raise BenchmarkError(f"first event is not the Task: {first}")
            if result_of(last, body["id"]).get("final") is not True:
                raise BenchmarkError(f"stream ended without a final event: {last}")
            if index >= warmup:
                samples.append(elapsed * 1000)
    return {"samples_ms": samples}


async def client_stream(url: str, chunks: int, text: str | None, task: str | None) -> dict[str, Any]:
    """One stream of ``chunks`` chunks: a new task's (message/stream of ``text``) or, replayed
    from the log, a finished ``task``'s after its ``submitted`` status (tasks/resubscribe with
    Last-Event-ID 2). Its events and the (monotonic) times of the first and the final one."""
    import httpx

    if task is None:
        body, headers = stream_body(text or ""), {}
    else:
        body = {"jsonrpc": "2.0", "id": "replay", "method": "tasks/resubscribe", "params": {"id": task}}
        headers = {"Last-Event-ID": "2"}
    count = 0
    previous: int | None = None
    task_id = task
    first_at = final_at = 0.0
    async with (
        httpx.AsyncClient(timeout=30.0) as http,
        http.stream("POST", url, json=body, headers=headers) as response,
    ):
        async for event_id, payload in sse_events(response.aiter_lines()):
            now = time.monotonic()
            result = result_of(payload, body["id"])
            if previous is not None and event_id != previous + 1:
                raise BenchmarkError(f"event {event_id} after {previous}: a gap or a duplicate")
            previous = event_id
            count += 1
            if count == 1:
                first_at = now
                task_id = task_id or result["id"]
                continue
            # The log: message (1), submitted (2), working (3), chunk i (4 + i), completed.
            if result["kind"] == "artifact-update" and result["artifact"]["parts"][0]["text"] != str(
                event_id - 4
            ):
                raise BenchmarkError(f"event {event_id} is not chunk {event_id - 4}: {result}")
            if result.get("final"):
                final_at = now
    if not final_at or previous != chunks + 4:
        raise BenchmarkError(f"stream ended early: {count} events, the last one {previous}")
    return {"task": task_id, "events": count, "first_at": first_at, "final_at": final_at}


def client_main(args: argparse.Namespace) -> None:
    if args.client == "first":
        result = asyncio.run(client_first_event(args.url, args.requests, args.warmup))
    else:
        result = asyncio.run(client_stream(args.url, args.count, args.text, args.task))
    print(json.dumps(result))


# --- the server (this process) ------------------------------------------------------------------

ROLE: contextvars.ContextVar[str] = contextvars.ContextVar("role", default="worker")


class RoleMiddleware:
    """Marks everything an HTTP request does (and the threads its boto3 calls run on) as "api"."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            ROLE.set("api")
        await self.app(scope, receive, send)


@dataclass
class ReadMeter:
    """DynamoDB read calls and read units (strongly consistent: 4 KB each), by role."""

    calls: Counter[str] = field(default_factory=Counter)
    units: Counter[str] = field(default_factory=Counter)

    def attach(self, client: Any) -> None:
        client.meta.events.register("after-call.dynamodb.*", self._response)

    def _response(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        from aws_cost import item_size

        if model.name not in ("Query", "GetItem", "BatchGetItem", "Scan"):
            return
        role = ROLE.get()
        items = parsed.get("Items") or ([parsed["Item"]] if parsed.get("Item") else [])
        self.calls[role] += 1
        self.units[role] += max(1, math.ceil(sum(item_size(i) for i in items) / 4096))

    def snapshot(self) -> dict[str, int]:
        return {
            "api_calls": self.calls["api"],
            "api_units": self.units["api"],
            "all_calls": sum(self.calls.values()),
        }


class Server:
    """The dev stack for ``backend`` under uvicorn on 127.0.0.1, on a thread of its own."""

    def __init__(self, backend: str, *, nodelay: bool = False) -> None:
        import socket

        import uvicorn

        from a2a_core.core.turn.executor import as_executor
        from a2a_core.dev.console import bind
        from a2a_core.dev.stack import build_dev_stack
        from a2a_core.settings import Settings

        self.stack = build_dev_stack(Settings(backend=backend, name="bench"), as_executor(bench_agent))
        self.meter = ReadMeter()
        if self.stack.emulator is not None:
            self.meter.attach(self.stack.emulator.clients.dynamodb)
        sock = bind("127.0.0.1", 0)
        if nodelay:
            # A listening socket made with IPPROTO_TCP: asyncio then sets TCP_NODELAY on each
            # connection it accepts (it skips sockets whose proto is 0, as `bind` makes them).
            sock.close()
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", 0))
            sock.listen(2048)
        host, port = sock.getsockname()[:2]
        self.url = f"http://{host}:{port}/"
        config = uvicorn.Config(RoleMiddleware(self.stack.app), log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[sock])), name="uvicorn", daemon=True
        )

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise BenchmarkError("the server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def client(self, *args: str) -> dict[str, Any]:
        """Run one client phase in a child process; its JSON result."""
        command = [sys.executable, str(Path(__file__).resolve()), "--client", *args, "--url", self.url]
        done = subprocess.run(command, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, check=False)
        if done.returncode != 0:
            raise BenchmarkError(f"client {args} failed:\n{done.stderr}")
        result: dict[str, Any] = json.loads(done.stdout)
        return result


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def run_backend(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    chunks = args.chunks if backend == "memory" else args.local_chunks
    with Server(backend, nodelay=args.nodelay) as server:
        before = server.meter.snapshot()
        first = server.client("first", "--requests", str(args.requests), "--warmup", str(args.warmup))
        after_first = server.meter.snapshot()
        samples = first["samples_ms"]
        streams = args.requests + args.warmup

        phases: dict[str, Any] = {}
        burst_task: str | None = None
        for phase, text, count in (
            ("burst", f"burst {chunks}", chunks),
            ("paced", f"paced {args.paced_chunks} {args.paced_interval}", args.paced_chunks),
        ):
            start_meter = server.meter.snapshot()
            stream = server.client("stream", "--text", text, "--count", str(count))
            end_meter = server.meter.snapshot()
            agent_started, agent_done = AGENT_TIMES[text]
            events = stream["events"]
            duration = stream["final_at"] - stream["first_at"]
            reads = end_meter["api_calls"] - start_meter["api_calls"]
            burst_task = burst_task or stream["task"]
            phases[phase] = {
                "chunks": count,
                "events": events,
                "stream_seconds": round(duration, 4),
                "events_per_second": round((events - 1) / duration, 1) if duration > 0 else None,
                "agent_writes_per_second": round(count / (agent_done - agent_started), 1),
                "final_event_lag_ms": round((stream["final_at"] - agent_done) * 1000, 2),
                "dynamodb_reads": reads if server.stack.emulator else None,
                "dynamodb_reads_per_event": round(reads / events, 3) if server.stack.emulator else None,
                "dynamodb_read_units_per_event": (
                    round((end_meter["api_units"] - start_meter["api_units"]) / events, 3)
                    if server.stack.emulator
                    else None
                ),
            }
        # The burst's events once more, read back from the log: the stream's own pace.
        start_meter = server.meter.snapshot()
        replay = server.client("stream", "--task", burst_task or "", "--count", str(chunks))
        end_meter = server.meter.snapshot()
        duration = replay["final_at"] - replay["first_at"]
        reads = end_meter["api_calls"] - start_meter["api_calls"]
        phases["replay"] = {
            "chunks": chunks,
            "events": replay["events"],
            "stream_seconds": round(duration, 4),
            "events_per_second": round((replay["events"] - 1) / duration, 1) if duration > 0 else None,
            "dynamodb_reads": reads if server.stack.emulator else None,
        }
    first_reads = after_first["api_calls"] - before["api_calls"]
    return {
        "backend": backend,
        "first_event_ms": {
            "n": len(samples),
            "p50": round(percentile(samples, 50), 2),
            "p95": round(percentile(samples, 95), 2),
            "mean": round(statistics.fmean(samples), 2),
            "max": round(max(samples), 2),
        },
        "first_event_dynamodb_reads_per_stream": (
            round(first_reads / streams, 2) if backend == "local" else None
        ),
        **phases,
    }


def print_report(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(
        f"streaming on the dev stack (uvicorn, 127.0.0.1), client in a child process; "
        f"{args.requests} first-event requests after {args.warmup} warm-up; listening socket: "
        f"{'IPPROTO_TCP (TCP_NODELAY)' if args.nodelay else 'a2a_core.dev.console.bind (Nagle on)'}\n"
    )
    for result in results:
        first = result["first_event_ms"]
        verdict = "PASS" if first["p50"] <= TARGETS["first_event_p50_ms"] else "MISS"
        print(f"[{result['backend']}]")
        print(
            f"  first event: p50 {first['p50']:.2f} ms, p95 {first['p95']:.2f} ms, mean {first['mean']:.2f} "
            f"ms, max {first['max']:.2f} ms   target p50 <= {TARGETS['first_event_p50_ms']:.0f} ms {verdict}"
        )
        if result["first_event_dynamodb_reads_per_stream"] is not None:
            print(f"  DynamoDB reads per short stream: {result['first_event_dynamodb_reads_per_stream']}")
        for phase in ("burst", "paced"):
            p = result[phase]
            line = (
                f"  {phase}: {p['chunks']} chunks, {p['events']} events in {p['stream_seconds']:.3f} s = "
                f"{p['events_per_second']:,.0f} events/s (agent wrote {p['agent_writes_per_second']:,.0f}/s; "
                f"final event {p['final_event_lag_ms']:.1f} ms after the agent's last write)"
            )
            if phase == "burst":
                ok = (p["events_per_second"] or 0) >= TARGETS["events_per_second"]
                line += f"   target >= {TARGETS['events_per_second']:,.0f}/s {'PASS' if ok else 'MISS'}"
            print(line)
            if p["dynamodb_reads"] is not None:
                target = TARGETS[f"reads_per_event_{phase}"]
                verdict = "PASS" if p["dynamodb_reads_per_event"] <= target else "MISS"
                print(
                    f"    DynamoDB reads (API side): {p['dynamodb_reads']} calls = "
                    f"{p['dynamodb_reads_per_event']} per event, {p['dynamodb_read_units_per_event']} "
                    f"read units per event   target <= {target:g} per event {verdict}"
                )
        replay = result["replay"]
        reads = "" if replay["dynamodb_reads"] is None else f", {replay['dynamodb_reads']} DynamoDB reads"
        print(
            f"  replay of the burst (tasks/resubscribe, Last-Event-ID 2): {replay['events']} events in "
            f"{replay['stream_seconds']:.3f} s = {replay['events_per_second']:,.0f} events/s{reads}"
        )
        print()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=["both", "memory", "local"], default="both")
    parser.add_argument("--requests", type=int, default=50, help="timed first-event requests")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=5000, help="burst chunks on the memory backend")
    parser.add_argument("--local-chunks", type=int, default=300, help="burst chunks on moto")
    parser.add_argument("--paced-chunks", type=int, default=100)
    parser.add_argument("--paced-interval", type=float, default=0.01)
    parser.add_argument(
        "--nodelay",
        action="store_true",
        help="serve on a socket made with IPPROTO_TCP, so connections get TCP_NODELAY (the dev "
        "server's own `bind` makes proto-0 sockets, on which asyncio leaves Nagle's algorithm on)",
    )
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    # The child process's side (internal).
    parser.add_argument("--client", choices=["first", "stream"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--text", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--task", help=argparse.SUPPRESS)
    args = smoke.parse(parser, requests=1, warmup=0, chunks=20, local_chunks=5, paced_chunks=3)
    if args.client:
        client_main(args)
        return
    if min(args.requests, args.chunks, args.local_chunks, args.paced_chunks) < 1 or args.warmup < 0:
        parser.error("counts must be >= 1 (--warmup >= 0)")

    logging.basicConfig(level=logging.WARNING)
    backends = ["memory", "local"] if args.backend == "both" else [args.backend]
    results = [run_backend(backend, args) for backend in backends]
    if args.json:
        payload = {
            "benchmark": "streaming",
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "targets": TARGETS,
            "nodelay": args.nodelay,
            "results": results,
        }
        print(json.dumps(payload, indent=2))
    else:
        print_report(results, args)


if __name__ == "__main__":
    main()
