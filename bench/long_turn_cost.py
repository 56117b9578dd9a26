"""What one long turn costs on the long-turn worker (ECS Fargate, arm64), beside Amazon Bedrock
AgentCore Runtime's published per-second price for the same work, and the Lambda worker where a
turn still fits it: per turn of 1, 10 and 60 minutes.

A model from list prices (`cost_model.PRICES`, with their sources and dates), not a measurement:
Fargate bills the task's configured vCPU and memory per second (one-minute minimum) from the
image's pull until the task stops, so a turn pays for its start (``--start-seconds``: the pull of
the worker's image and Python's start, ~30 s for a 150 MB image) on top of its work; the task
holds a public IPv4 address (no NAT gateway) that long. The run queue's consumer (one Lambda
invocation) launches the task; while the agent works, the worker heartbeats its lease (a DynamoDB
write and an SQS ChangeMessageVisibility each ``--heartbeat-seconds``) and deletes the message
when done. AgentCore bills CPU only while it is active (not while the agent waits on its model
or tools: AWS puts agents' I/O wait at 30-70% of their time) and memory at its peak so far.

    python bench/long_turn_cost.py            # 1, 10 and 60 minute turns
    python bench/long_turn_cost.py --smoke    # one 1-minute turn, the same arithmetic
    python bench/long_turn_cost.py --json     # the figures as one JSON object
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from cost_model import PRICES

LAMBDA_LIMIT_SECONDS = 890  # the Lambda worker's longest turn: 900 s less its safety margin
CONSUMER_SECONDS = 0.3  # the consumer's invocation: read the head, call RunTask
CONSUMER_GB = 0.5  # the worker function's memory (`cost_model.MEMORY_GB`)


@dataclass(frozen=True)
class Task:
    """The long-turn worker's task size (the construct's defaults: 1 vCPU, 2 GB, arm64)."""

    vcpu: float = 1.0
    memory_gb: float = 2.0
    start_seconds: float = 30.0
    heartbeat_seconds: float = 30.0


def fargate(work_seconds: float, task: Task, *, spot: bool = False) -> dict[str, float]:
    """The dollars of one turn of ``work_seconds`` on the long-turn worker, by line."""
    billed = max(60.0, work_seconds + task.start_seconds)
    compute = billed * (
        task.vcpu * PRICES["fargate_arm_vcpu_second"] + task.memory_gb * PRICES["fargate_arm_gb_second"]
    )
    beats = work_seconds // task.heartbeat_seconds
    return {
        "compute": compute * (PRICES["fargate_spot_share"] if spot else 1.0),
        "public_ipv4": billed / 3600 * PRICES["public_ipv4_hour"],
        "consumer": PRICES["lambda_request"]
        + CONSUMER_SECONDS * CONSUMER_GB * PRICES["lambda_gb_second_arm64"],
        # The consumer's receive and the worker's delete, and each heartbeat's two requests.
        "queue_and_lease": (2 + beats) * PRICES["sqs_standard_request"]
        + beats * PRICES["dynamodb_write_unit"],
    }


def agentcore(work_seconds: float, *, active_share: float, peak_gb: float, vcpu: float = 1.0) -> float:
    """AgentCore Runtime for the same session: CPU while active, memory at its peak throughout."""
    cpu = work_seconds * active_share * vcpu * PRICES["agentcore_vcpu_second"]
    memory = work_seconds * max(peak_gb, 0.125) * PRICES["agentcore_gb_second"]
    return cpu + memory


def lambda_worker(work_seconds: float, memory_gb: float) -> float | None:
    """The Lambda worker at ``memory_gb`` (1.77 GB is one vCPU), where the turn fits it."""
    if work_seconds > LAMBDA_LIMIT_SECONDS:
        return None
    return PRICES["lambda_request"] + work_seconds * memory_gb * PRICES["lambda_gb_second_arm64"]


def report(minutes: list[float], task: Task, peak_gb: float) -> str:
    header = (
        "turn    Fargate   (compute  IPv4   consumer+queue)  Fargate Spot  AgentCore 30% / 70% active  "
        "Lambda 2 GB"
    )
    lines = [header]
    for minute in minutes:
        work = minute * 60
        on_demand, spot = fargate(work, task), fargate(work, task, spot=True)
        rest = on_demand["consumer"] + on_demand["queue_and_lease"]
        lam = lambda_worker(work, task.memory_gb)
        lines.append(
            f"{minute:>4g} min ${sum(on_demand.values()):.5f} (${on_demand['compute']:.5f} "
            f"${on_demand['public_ipv4']:.5f} ${rest:.6f})  ${sum(spot.values()):.5f}      "
            f"${agentcore(work, active_share=0.3, peak_gb=peak_gb):.5f} / "
            f"${agentcore(work, active_share=0.7, peak_gb=peak_gb):.5f}         "
            + (f"${lam:.5f}" if lam is not None else "(over 15 min)")
        )
    lines.append(
        f"Fargate: {task.vcpu:g} vCPU, {task.memory_gb:g} GB arm64 billed from its {task.start_seconds:g} s "
        f"start (1-minute minimum), heartbeat every {task.heartbeat_seconds:g} s; AgentCore: {task.vcpu:g} "
        f"vCPU while active, {peak_gb:g} GB peak memory. Per million turns: multiply by 1e6."
    )
    return "\n".join(lines)


def as_json(minutes: list[float], task: Task, peak_gb: float) -> dict[str, object]:
    """The same figures, per turn length in minutes."""
    turns = {}
    for minute in minutes:
        work = minute * 60
        turns[f"{minute:g}"] = {
            "fargate": fargate(work, task),
            "fargate_spot": fargate(work, task, spot=True),
            "agentcore_30": agentcore(work, active_share=0.3, peak_gb=peak_gb),
            "agentcore_70": agentcore(work, active_share=0.7, peak_gb=peak_gb),
            "lambda_worker": lambda_worker(work, task.memory_gb),
        }
    return {"task": vars(task) | {"peak_gb": peak_gb}, "turns": turns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="one 1-minute turn (the tests' run)")
    parser.add_argument("--vcpu", type=float, default=1.0)
    parser.add_argument("--memory-gb", type=float, default=2.0, help="the task's memory (Fargate bills it)")
    parser.add_argument(
        "--peak-gb", type=float, default=1.0, help="the agent's peak memory (AgentCore bills it)"
    )
    parser.add_argument("--start-seconds", type=float, default=30.0)
    parser.add_argument("--heartbeat-seconds", type=float, default=30.0)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args()
    task = Task(args.vcpu, args.memory_gb, args.start_seconds, args.heartbeat_seconds)
    minutes: list[float] = [1] if args.smoke else [1, 10, 60]
    if args.json:
        print(json.dumps(as_json(minutes, task, args.peak_gb)))
    else:
        print(report(minutes, task, args.peak_gb))


if __name__ == "__main__":
    main()
