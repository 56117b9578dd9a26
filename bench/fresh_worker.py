"""What a fresh worker per turn (``a2a-serverless dev --worker fresh``) costs against a warm one.

Two figures per agent: building the agent from a fresh import of its module in this process
(`a2a_core.adapters.fresh.FreshAgent.build`, the work added to each turn), and the latency of a
blocking ``message/send`` (0.3 JSON-RPC, one at a time, each a new task) against two ``dev --fresh``
(the AWS emulator) running side by side, one ``--worker warm`` and one ``--worker fresh``, sent
to in turn after a warm-up.

    .venv/bin/python bench/fresh_worker.py [--turns 40] [--builds 200] [--agents echo,pydantic-ai] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402

AGENTS = {
    "echo": "a2a_core.examples.echo:agent",
    "pydantic-ai": "a2a_core.examples.pydantic_ai_agent:agent",
    "multiturn": "a2a_core.examples.multiturn:agent",
}
URL_LINE = re.compile(r"^A2A agent listening on (?P<url>http://\S+)\s*$")
STARTUP_TIMEOUT = 60.0
WARMUP = 3


def build_ms(spec: str, builds: int) -> float:
    """Median milliseconds of one fresh import and build of the agent ``spec`` names."""
    from a2a_core.adapters.fresh import FreshAgent
    from a2a_core.discovery import find_agent

    fresh = FreshAgent(find_agent(spec))
    times = []
    for _ in range(builds):
        start = time.perf_counter()
        fresh.build()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


@contextmanager
def dev(spec: str, worker: str) -> Iterator[str]:
    """``a2a-serverless dev`` serving ``spec`` with ``--worker worker``; yields its URL."""
    command = [sys.executable, "-m", "a2a_core.cli", "dev", "--fresh", "--port", "0", "--agent", spec]
    command += ["--worker", worker, "--log-level", "warning"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # Our own interpreter and a fixed argv.
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT
    )
    found: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            match = URL_LINE.match(line)
            if match and not found:
                found.append(match.group("url"))
                ready.set()
        ready.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        if not ready.wait(STARTUP_TIMEOUT) or not found:
            raise RuntimeError(f"dev --worker {worker} for {spec} did not start")
        yield found[0]
    finally:
        process.terminate()
        process.wait(10)
        reader.join(5)


def turn_ms(urls: dict[str, str], turns: int) -> dict[str, list[float]]:
    """Milliseconds of each of ``turns`` blocking sends (each a new task) per server, after a
    warm-up; the servers take turns, so a change in the machine's load hits both alike."""
    times: dict[str, list[float]] = {name: [] for name in urls}
    with httpx.Client(timeout=30) as http:
        for url in urls.values():
            _wait_healthy(http, url)
        for index in range(WARMUP + turns):
            for name, url in urls.items():
                elapsed = _send(http, url)
                if index >= WARMUP:
                    times[name].append(1000 * elapsed)
    return times


def _send(http: httpx.Client, url: str) -> float:
    parts = [{"kind": "text", "text": "hi"}]
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": parts}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    start = time.perf_counter()
    task = http.post(url, json=body).json()["result"]
    elapsed = time.perf_counter() - start
    if task["status"]["state"] not in {"completed", "input-required"}:
        raise RuntimeError(f"the turn ended {task['status']['state']}: {task}")
    return elapsed


def _wait_healthy(http: httpx.Client, url: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        try:
            if http.get(f"{url}healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} never answered /healthz")


def measure(name: str, turns: int, builds: int) -> dict[str, Any]:
    """One agent's figures: the build's cost, and the turn's latency warm and fresh."""
    spec = AGENTS[name]
    result: dict[str, Any] = {"agent": name, "build_ms": round(build_ms(spec, builds), 2)}
    with dev(spec, "warm") as warm, dev(spec, "fresh") as fresh:
        times = turn_ms({"warm": warm, "fresh": fresh}, turns)
    for worker, measured in times.items():
        result[f"{worker}_p50_ms"] = round(statistics.median(measured), 1)
    result["added_p50_ms"] = round(result["fresh_p50_ms"] - result["warm_p50_ms"], 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40, help="measured turns per server (default 40)")
    parser.add_argument("--builds", type=int, default=200, help="in-process builds per agent (default 200)")
    parser.add_argument("--agents", default="echo,pydantic-ai,multiturn", help=f"of {', '.join(AGENTS)}")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = smoke.parse(parser, turns=2, builds=3, agents="echo")
    rows = [measure(name, args.turns, args.builds) for name in args.agents.split(",")]
    if args.json:
        print(json.dumps({"turns": args.turns, "builds": args.builds, "results": rows}))
        return
    print(f"{'agent':<12} {'build (ms)':>10} {'warm p50':>9} {'fresh p50':>10} {'added':>7}")
    for row in rows:
        print(
            f"{row['agent']:<12} {row['build_ms']:>10.2f} {row['warm_p50_ms']:>9.1f} "
            f"{row['fresh_p50_ms']:>10.1f} {row['added_p50_ms']:>7.1f}"
        )


if __name__ == "__main__":
    main()
