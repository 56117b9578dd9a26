"""Two-turn tasks under injected DynamoDB faults, through the real Lambda handlers on moto.

Each DynamoDB call of the API, worker and dead-letter functions fails with probability ``--rate``
(seeded), in the modes asked for: ``retried`` (errors botocore retries: 500s and throttles, 30% of
the writes' landing first with only the answer lost) and ``surfaced`` (errors that reach our code:
``TransactionConflictException``, a 500 or a throttle after botocore's retries, 30% of the writes'
raised after the write landed). See ``tests/fault_injection.py`` for the faults and the run.

Done when every task is completed (none failed by a store error), each log holds exactly one
terminal state, no task holds an artifact or message twice, and GetTask in both generations
(0.3 JSON-RPC ``tasks/get`` and 1.0 ``GetTask``) equals the fold of the stored log. The script
exits non-zero otherwise.

    .venv/bin/python bench/faults.py            # 200 tasks, 20% faults, both modes
    .venv/bin/python bench/faults.py --smoke    # 20 tasks per mode, throttle waits x0.1 (CI)
    .venv/bin/python bench/faults.py [--tasks N] [--rate R] [--modes retried,surfaced] [--seed S] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
# The handlers take the usual credential chain, as in AWS; moto accepts any.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "CRITICAL")  # the handlers log every injected fault

from a2a_core.emulator.moto_server import create_resources, start_emulator  # noqa: E402
from dynamodb_faults import MODES  # noqa: E402
from fault_injection import FaultReport, run_faulted_tasks  # noqa: E402


def summary(label: str, report: FaultReport) -> dict[str, Any]:
    injected = sum(report.injected.values())
    return {
        "run": label,
        "tasks": report.tasks,
        "ok": report.ok,
        "states": dict(report.states),
        "problems": report.problems[:20],
        "dynamodb_calls": report.dynamodb_calls,
        "faults_injected": injected,
        "faults_by_kind": dict(sorted(report.injected.items())),
        "landed_then_failed": sum(n for kind, n in report.injected.items() if ":landed:" in kind),
        "worker_invocations": report.worker_invocations,
        "records_redelivered": report.record_failures,
        "dead_letters": report.dead_letters,
        "api_retries": report.api_retries,
        "retried_turns": report.retried_turns,
        "superseded_commits": report.superseded_commits,
        "seconds": round(report.seconds, 1),
    }


def print_summary(result: dict[str, Any]) -> None:
    verdict = "PASS" if result["ok"] else "FAIL"
    print(f"\n{result['run']}: {result['tasks']} two-turn tasks  {verdict}")
    print(f"  end states                {result['states']}")
    faults = f"{result['faults_injected']} ({result['landed_then_failed']} after the write landed)"
    print(f"  DynamoDB calls            {result['dynamodb_calls']}, faults injected {faults}")
    for kind, count in result["faults_by_kind"].items():
        print(f"      {kind:<55} {count}")
    print(f"  worker invocations        {result['worker_invocations']}")
    print(f"  records redelivered       {result['records_redelivered']}  (store errors past the retries)")
    print(f"  dead letters              {result['dead_letters']}")
    print(f"  API requests sent again   {result['api_retries']}")
    replaced = f"{result['superseded_commits']} commits replaced"
    print(f"  turns run again           {result['retried_turns']}  ({replaced})")
    print(f"  wall time                 {result['seconds']} s")
    for problem in result["problems"]:
        print(f"  PROBLEM {problem}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="20 tasks per mode, each mode alone (CI)")
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--rate", type=float, default=0.2)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # every injected fault is logged as an error
    if args.smoke:
        runs = [(mode, 20, [mode], 0.1) for mode in MODES]
    else:
        modes = args.modes.split(",")
        runs = [("+".join(modes), args.tasks, modes, 1.0)]
    aws = start_emulator()
    results = []
    try:
        for index, (label, tasks, modes, backoff) in enumerate(runs):
            names = create_resources(aws.clients, None, aws.region)
            report = run_faulted_tasks(
                aws,
                names,
                tasks=tasks,
                rate=args.rate,
                modes=modes,
                seed=args.seed + index,
                throttle_backoff=backoff,
            )
            results.append(summary(f"{label} at {args.rate:.0%}", report))
    finally:
        aws.stop()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for result in results:
            print_summary(result)
    return 0 if all(result["ok"] for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
