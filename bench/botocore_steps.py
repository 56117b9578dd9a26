"""What building the DynamoDB and SQS clients costs, step by step, with botocore's stock loader and
with `a2a_core.aws.botocore_loader.KitLoader` (and the pruned endpoints file bundles carry).

Each run is a fresh interpreter that times, in order: importing ``botocore.session`` (and
``botocore.config``), creating the session (and registering the loader), listing the available
services (for service models and endpoint rule sets, as client creation does), loading the
DynamoDB and SQS service models (JSON), loading the endpoint data (``endpoints.json``,
``partitions.json``, both rule sets), then creating both clients with all that data cached
(client classes, endpoint resolvers, credentials, retry and default configuration). Nothing is
sent anywhere.

    .venv/bin/python bench/botocore_steps.py [--runs 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import smoke

ROOT = Path(__file__).resolve().parents[1]
STEPS = (
    "import botocore.session",
    "session (+ loader)",
    "list available services",
    "service models (JSON)",
    "endpoint data (JSON)",
    "create both clients",
)
CHILD = """\
import json, sys, time
marks = []
def step(start):
    now = time.perf_counter(); marks.append(now - start); return now
start = time.perf_counter()
import botocore.session
from botocore.config import Config
start = step(start)
session = botocore.session.Session()
if sys.argv[1] != "stock":
    from pathlib import Path
    from a2a_core.aws.botocore_loader import KitLoader
    session.register_component("data_loader", KitLoader(endpoints=Path(sys.argv[1])))
loader = session.get_component("data_loader")
start = step(start)
for kind in ("service-2", "endpoint-rule-set-1"):
    loader.list_available_services(kind)
start = step(start)
for service in ("dynamodb", "sqs"):
    loader.load_service_model(service, "service-2")
start = step(start)
loader.load_data("endpoints"); loader.load_data("partitions")
for service in ("dynamodb", "sqs"):
    loader.load_service_model(service, "endpoint-rule-set-1")
start = step(start)
config = Config(region_name="eu-west-1", retries={"max_attempts": 4, "mode": "standard"})
session.create_client("dynamodb", config=config)
session.create_client("sqs", config=config)
step(start)
print(json.dumps(marks))
"""


def measure(runs: int) -> dict[str, dict[str, float]]:
    """Loader -> step -> median seconds over ``runs`` fresh processes (after one discarded)."""
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    with tempfile.TemporaryDirectory() as scratch:
        from a2a_core.aws.botocore_loader import write_pruned_endpoints

        pruned = Path(scratch) / "botocore_endpoints.json"
        write_pruned_endpoints(pruned)
        loaders = {"stock": "stock", "KitLoader": str(pruned)}
        samples: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in loaders}
        for round_ in range(runs + 1):
            for name, argument in loaders.items():  # interleaved: drift hits both alike
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, argument],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=env,
                )
                if round_:
                    marks = json.loads(done.stdout)
                    for step, seconds in zip(STEPS, marks, strict=True):
                        samples[name][step].append(seconds)
                    samples[name]["total"].append(sum(marks))
    return {
        name: {step: statistics.median(v) for step, v in steps.items()} for name, steps in samples.items()
    }


def report(medians: dict[str, dict[str, float]]) -> list[str]:
    names = list(medians)
    lines = [f"{'step':<26}" + "".join(f"{name:>12}" for name in names)]
    for step in (*STEPS, "total"):
        lines.append(f"{step:<26}" + "".join(f"{medians[name][step] * 1000:>9.1f} ms" for name in names))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9, help="fresh processes per loader")
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser, runs=1)
    load = os.getloadavg()[0]
    medians = measure(args.runs)
    if args.json:
        print(
            json.dumps(
                {"benchmark": "botocore_steps", "runs": args.runs, "load_average": load, "medians": medians}
            )
        )
        return
    print(f"botocore client construction (DynamoDB + SQS), median of {args.runs} fresh processes")
    print(f"load average before measuring: {load:.2f} ({os.cpu_count()} CPUs)")
    print()
    print("\n".join(report(medians)))


if __name__ == "__main__":
    main()
