"""`a2a-serverless dev` under load, on its default backend (the AWS emulator), beside a2a-sdk 1.3's
in-memory server in the same run.

Each server runs as its own process, as a user runs it: ``a2a-serverless dev --fresh`` with the
echo agent, and a2a-sdk 1.3's server (``bench/sdk_handler.py``: in-memory stores, the same echo
agent) under uvicorn. Clients in this process send blocking 1.0 JSON-RPC ``SendMessage`` calls,
``--concurrency`` at a time for ``--seconds`` (after a short warm-up); every answer must be the
completed task holding the message sent. Reported per level: tasks completed per second and the
latency of a call (p50, p95). Startup: from starting the process to its first answer.

    .venv/bin/python bench/dev_load.py [--concurrency 1,8,32] [--seconds 10] [--servers dev,a2a-sdk]
        [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402

HEADERS = {"A2A-Version": "1.0", "content-type": "application/json"}
STARTUP_TIMEOUT = 60.0


@dataclass(frozen=True)
class Level:
    concurrency: int
    tasks: int
    seconds: float
    latencies: list[float]

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        return {
            "concurrency": self.concurrency,
            "tasks_per_second": round(self.tasks / self.seconds, 1),
            "p50_ms": round(1000 * statistics.median(ordered), 1) if ordered else None,
            "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1) if ordered else None,
            "tasks": self.tasks,
        }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command(server: str, port: int) -> list[str]:
    if server == "dev":
        return [
            sys.executable,
            "-m",
            "a2a_core.cli",
            "dev",
            "--fresh",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ]
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "--app-dir",
        str(ROOT / "bench"),
        "sdk_handler:app",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]


@contextlib.contextmanager
def running(server: str) -> Iterator[tuple[str, float]]:
    """The server's URL and how long it took to answer its first request."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_")}
    with tempfile.TemporaryDirectory() as home:
        started = time.perf_counter()
        process = subprocess.Popen(
            command(server, port), cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        url = f"http://127.0.0.1:{port}/"
        try:
            startup = _first_answer(url, process, started)
            yield url, startup
        finally:
            process.send_signal(signal.SIGINT)  # Ctrl-C, as a user stops it
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _first_answer(url: str, process: subprocess.Popen[bytes], started: float) -> float:
    while time.perf_counter() - started < STARTUP_TIMEOUT:
        if process.poll() is not None:
            error = process.stderr.read().decode() if process.stderr else ""
            raise RuntimeError(f"the server exited with {process.returncode}: {error[-2000:]}")
        try:
            httpx.get(url + ".well-known/agent-card.json", timeout=1.0).raise_for_status()
            return time.perf_counter() - started
        except httpx.HTTPError:
            time.sleep(0.02)
    raise RuntimeError(f"no answer from {url} within {STARTUP_TIMEOUT} s")


async def send(client: httpx.AsyncClient, url: str) -> None:
    message_id = str(uuid.uuid4())
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "hello"}]}},
    }
    response = await client.post(url, json=body, headers=HEADERS)
    payload = response.json()
    task = (payload.get("result") or {}).get("task") or {}
    state = (task.get("status") or {}).get("state")
    held = [m.get("messageId") for m in task.get("history") or []]
    if response.status_code != 200 or state != "TASK_STATE_COMPLETED" or message_id not in held:
        raise RuntimeError(f"not the completed task holding {message_id}: {payload}")


async def level(url: str, concurrency: int, seconds: float, warmup: float = 2.0) -> Level:
    """``concurrency`` clients sending back to back; counted after ``warmup`` seconds."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    latencies: list[float] = []
    async with httpx.AsyncClient(limits=limits, timeout=60.0) as client:
        start = time.perf_counter()
        measure_from, stop_at = start + warmup, start + warmup + seconds

        async def one_client() -> None:
            while (began := time.perf_counter()) < stop_at:
                await send(client, url)
                if began >= measure_from:
                    latencies.append(time.perf_counter() - began)

        await asyncio.gather(*(one_client() for _ in range(concurrency)))
    return Level(concurrency, len(latencies), seconds, latencies)


def measure(server: str, levels: list[int], seconds: float, warmup: float) -> dict[str, Any]:
    with running(server) as (url, startup):
        results = [asyncio.run(level(url, concurrency, seconds, warmup)).summary() for concurrency in levels]
    return {"startup_seconds": round(startup, 2), "levels": results}


def print_report(results: dict[str, dict[str, Any]]) -> None:
    load = os.getloadavg()
    print(f"blocking SendMessage (1.0 JSON-RPC), echo agent; load average {load[0]:.2f} {load[1]:.2f}")
    servers = list(results)
    print("  " + " | ".join(["concurrency", *(f"{name}: tasks/s, p50, p95 (ms)" for name in servers)]))
    for index, concurrency in enumerate(r["concurrency"] for r in results[servers[0]]["levels"]):
        cells = []
        for name in servers:
            row = results[name]["levels"][index]
            cells.append(f"{row['tasks_per_second']:>7} {row['p50_ms']:>8} {row['p95_ms']:>8}")
        print(f"  {concurrency:>11} | " + " | ".join(cells))
    for name in servers:
        print(f"  {name} started in {results[name]['startup_seconds']} s")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds sent before counting, per level")
    parser.add_argument("--servers", default="dev,a2a-sdk")
    parser.add_argument("--json", action="store_true")
    args = smoke.parse(parser, concurrency="1,2", seconds=0.5, warmup=0.2)
    levels = [int(n) for n in args.concurrency.split(",")]
    results = {
        server: measure(server, levels, args.seconds, args.warmup) for server in args.servers.split(",")
    }
    if args.json:
        print(json.dumps({"load_average": os.getloadavg(), "servers": results}, indent=2))
        return
    print_report(results)


if __name__ == "__main__":
    main()
