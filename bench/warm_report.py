"""`warm_latency`'s figures: statistics per call (wall clock and CPU time), their medians over
rounds, the ratios a2a-sdk / ours, and the printed report."""

from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass, fields
from typing import Any

TARGET_MS = 1.0  # per call, mean
TARGET_RATIO = 2.0  # a2a-sdk / ours, per call, for the 1.0 protocols (issue 12)


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

    @classmethod
    def median(cls, each: list[Stats]) -> Stats:
        """Each statistic's median over rounds."""
        return cls(each[0].n, *(statistics.median(getattr(s, f.name) for s in each) for f in fields(cls)[1:]))


@dataclass(frozen=True)
class Timings:
    wall: Stats
    cpu: Stats  # this process's CPU time: what a busy machine disturbs least

    @classmethod
    def median(cls, each: list[Timings]) -> Timings:
        return cls(Stats.median([t.wall for t in each]), Stats.median([t.cpu for t in each]))


@dataclass(frozen=True)
class ServerResult:
    send: Timings
    get: Timings
    combined: Timings
    first_tenth_mean_ms: float  # combined wall mean over the first 10% of measured iterations
    last_tenth_mean_ms: float  # ... and over the last 10%: drift as state accumulates
    pending_loop_tasks: int  # asyncio tasks left on the loop when the workload ends
    last_task_state: str  # state of the last task, read after the loop was given time to drain


def median_result(rounds: list[ServerResult]) -> ServerResult:
    """Medians over rounds; the loop's leftovers and the last state from the last round."""
    last = rounds[-1]
    return ServerResult(
        send=Timings.median([r.send for r in rounds]),
        get=Timings.median([r.get for r in rounds]),
        combined=Timings.median([r.combined for r in rounds]),
        first_tenth_mean_ms=statistics.median(r.first_tenth_mean_ms for r in rounds),
        last_tenth_mean_ms=statistics.median(r.last_tenth_mean_ms for r in rounds),
        pending_loop_tasks=last.pending_loop_tasks,
        last_task_state=last.last_task_state,
    )


def ratios(servers: dict[str, ServerResult]) -> dict[str, float]:
    """a2a-sdk / ours, per call and per method (empty unless both ran)."""
    if {"ours", "a2a-sdk"} - servers.keys():
        return {}
    ours, sdk = servers["ours"], servers["a2a-sdk"]
    return {
        "send_mean_wall": sdk.send.wall.mean_ms / ours.send.wall.mean_ms,
        "get_mean_wall": sdk.get.wall.mean_ms / ours.get.wall.mean_ms,
        "per_call_mean_wall": sdk.combined.wall.mean_ms / ours.combined.wall.mean_ms,
        "per_call_p50_wall": sdk.combined.wall.p50_ms / ours.combined.wall.p50_ms,
        "per_call_p99_wall": sdk.combined.wall.p99_ms / ours.combined.wall.p99_ms,
        "per_call_mean_cpu": sdk.combined.cpu.mean_ms / ours.combined.cpu.mean_ms,
        "per_call_p99_cpu": sdk.combined.cpu.p99_ms / ours.combined.cpu.p99_ms,
    }


def verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"


def _row(protocol: str, label: str, method: str, t: Timings) -> str:
    w, c = t.wall, t.cpu
    return (
        f"{protocol:<12} {label:<8} {method:<19} {w.n:>5} {w.mean_ms:>7.3f} {w.p50_ms:>7.3f} {w.p99_ms:>7.3f}"
        f" {w.max_ms:>7.3f}  {c.mean_ms:>7.3f} {c.p50_ms:>7.3f} {c.p99_ms:>7.3f}"
    )


def print_report(
    results: dict[str, dict[str, ServerResult]],
    args: argparse.Namespace,
    load_before: float,
    load_after: float,
) -> None:
    from workloads import WORKLOADS

    print(
        f"warm latency: {args.iterations} iterations of send (not waiting for the agent) + get per "
        f"protocol and server, {args.warmup} warm-up iterations excluded, median of {args.rounds} "
        "round(s); handler(event, context) via Mangum, REST v1 events"
    )
    queue = "drained after each iteration (untimed)" if args.drain_queue else "never drained (grows)"
    print(
        f"our in-memory broker queue: {queue}; load average {load_before:.2f} before, {load_after:.2f} after"
    )
    for protocol in results:
        print(f"  {protocol}: {WORKLOADS[protocol].description}")
    print()
    header = (
        f"{'protocol':<12} {'server':<8} {'call':<19} {'n':>5} {'wall ms: mean':>13} {'p50':>7} {'p99':>7}"
        f" {'max':>7}  {'cpu ms: mean':>12} {'p50':>7} {'p99':>7}"
    )
    print(header)
    print("-" * len(header))
    for protocol, servers in results.items():
        workload = WORKLOADS[protocol]
        for label, result in servers.items():
            for method, timings in (
                (workload.send_method, result.send),
                (workload.get_method, result.get),
                ("per call", result.combined),
            ):
                print(_row(protocol, label, method, timings))
    print()
    for protocol, servers in results.items():
        for label, result in servers.items():
            wall = result.combined.wall
            print(
                f"{protocol} {label}: target <= {TARGET_MS:.1f} ms per call: "
                f"mean {wall.mean_ms:.3f} ms {verdict(wall.mean_ms <= TARGET_MS)}, "
                f"p99 {wall.p99_ms:.3f} ms {verdict(wall.p99_ms <= TARGET_MS)}; "
                f"drift first/last 10% {result.first_tenth_mean_ms:.3f}/{result.last_tenth_mean_ms:.3f} ms; "
                f"loop tasks pending {result.pending_loop_tasks}; last task {result.last_task_state}"
            )
    _print_ratios(results)


def _print_ratios(results: dict[str, dict[str, ServerResult]]) -> None:
    rows: list[tuple[str, dict[str, Any]]] = [(p, ratios(s)) for p, s in results.items()]
    if not any(r for _, r in rows):
        return
    print()
    print("ratio a2a-sdk / ours, per call (send and get pooled):")
    for protocol, r in rows:
        if not r:
            continue
        target = ""
        if protocol.startswith("1.0"):
            met = r["per_call_mean_wall"] >= TARGET_RATIO and r["per_call_mean_cpu"] >= TARGET_RATIO
            target = f"  target >= {TARGET_RATIO:.0f}x faster (mean, wall and CPU): {verdict(met)}"
        print(
            f"  {protocol:<12} wall mean {r['per_call_mean_wall']:5.2f}x  "
            f"p50 {r['per_call_p50_wall']:5.2f}x  p99 {r['per_call_p99_wall']:5.2f}x  "
            f"| cpu mean {r['per_call_mean_cpu']:5.2f}x  p99 {r['per_call_p99_cpu']:5.2f}x  "
            f"| send {r['send_mean_wall']:5.2f}x  get {r['get_mean_wall']:5.2f}x{target}"
        )
