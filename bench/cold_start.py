"""Cold start: how long importing the API Lambda handler (which builds the app) takes, and each
function's cold start and first request as deployed.

Each run is a fresh interpreter that times, with ``time.perf_counter()`` inside the child, the
import of the handler module (settings, adapters, Starlette app, Mangum). Interpreter startup is
not included in that figure; the parent also reports the whole process' wall time for context.
The same is measured for an a2a-sdk 1.3 in-memory server behind the same Mangum adapter
(``bench/sdk_handler.py``). Bytecode is compiled first so the figures reflect a Lambda bundle
shipped with ``.pyc`` files.

Then every function (api, worker, dlq, push, authorizer) is bundled as the CDK stack bundles it
and cold-started from its bundle alone, with the deployed settings, against moto: the import and
the first request, next to a2a-sdk's import and first ``message/send``
(`bench/function_cold_start.py`).

Last, the cold start serving a 1.0 request (`bench/v1_cold_start.py`): import + build + the first
JSON-RPC ``SendMessage`` or HTTP+JSON ``POST /message:send``, ours on the memory backend and as
deployed (its bundle, against moto), a2a-sdk's, and the bare libraries' floor, with the ratio to
a2a-sdk's (target <= 0.5x), and what our first 1.0 request imports (``-X importtime``).

    .venv/bin/python bench/cold_start.py [--runs 9] [--function-runs 7] [--v1-runs 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import function_cold_start  # noqa: E402
import smoke  # noqa: E402
import v1_cold_start  # noqa: E402

TARGET_SECONDS = 0.30
TARGET_RATIO = 0.5  # the API function's import + build against a2a-sdk's
IMPORTTIME_RUNS = 3

# (label, directory put on sys.path, module imported)
SERVERS: dict[str, tuple[Path, str]] = {
    "ours": (ROOT / "src" / "a2a_core" / "functions" / "api", "handler"),
    "ours-aws": (ROOT / "src" / "a2a_core" / "functions" / "api", "handler"),
    "a2a-sdk": (ROOT / "bench", "sdk_handler"),
}
# "ours" is the in-memory handler (like a2a-sdk's); "ours-aws" has the environment the CDK stack
# gives the deployed API function: the AWS backend (boto3 clients for DynamoDB, SQS, S3, KMS),
# API-key auth and push. Building clients makes no request, so no AWS is needed.
DEPLOYED_ENV = {
    "A2A_BACKEND": "aws",
    "A2A_AUTH_MODE": "api_key",
    "A2A_ALLOW_UNAUTHENTICATED": "false",
    "A2A_AWS_REGION": "eu-west-1",
    "A2A_TABLE_NAME": "a2a-tasks",
    "A2A_BUCKET_NAME": "a2a-parts",
    "A2A_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/runs",
    "A2A_DLQ_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/runs-dlq",
    "A2A_PUSH_ENABLED": "true",
    "A2A_PUSH_SIGNING_KEY_ID": "0b7a3c2e-1111-2222-3333-444455556666",
    "A2A_PUBLIC_URL": "https://abc123.execute-api.eu-west-1.amazonaws.com/prod/",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_LAMBDA_FUNCTION_NAME": "Api",  # Lambda sets it; the handler freezes what it built (gc)
}

CHILD = """\
import sys, time
sys.path.insert(0, {directory!r})
start = time.perf_counter()
import {module}
elapsed = time.perf_counter() - start
assert callable({module}.handler)
print(repr(elapsed))
"""


@dataclass(frozen=True)
class Summary:
    runs: list[float]
    median: float
    min: float
    max: float
    process_wall_median: float


def child_env(label: str = "ours") -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if label == "ours-aws":
        return env | DEPLOYED_ENV
    env.setdefault("A2A_ALLOW_UNAUTHENTICATED", "true")  # the in-memory handler's open mode
    return env


def compile_bytecode() -> float:
    """Precompile site-packages and our code, as a Lambda bundle would ship them; idempotent."""
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    paths.update(str(ROOT / name) for name in ("src", "bench"))
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-j", "0", *sorted(paths)],
        check=True,
        env=child_env(),
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def child_source(label: str) -> str:
    directory, module = SERVERS[label]
    return CHILD.format(directory=str(directory), module=module)


def measure_once(label: str) -> tuple[float, float]:
    """(import seconds measured in the child, whole-process wall seconds measured here)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", child_source(label)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(label),
    )
    wall = time.perf_counter() - start
    return float(done.stdout.strip().splitlines()[-1]), wall


def measure(runs: int) -> dict[str, Summary]:
    for label in SERVERS:  # one discarded run each: warms the OS page cache
        measure_once(label)
    imports: dict[str, list[float]] = defaultdict(list)
    walls: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        for label in SERVERS:  # interleaved, so drift on the machine hits both alike
            elapsed, wall = measure_once(label)
            imports[label].append(elapsed)
            walls[label].append(wall)
    return {
        label: Summary(
            runs=imports[label],
            median=statistics.median(imports[label]),
            min=min(imports[label]),
            max=max(imports[label]),
            process_wall_median=statistics.median(walls[label]),
        )
        for label in SERVERS
    }


def import_costs(label: str, runs: int = IMPORTTIME_RUNS) -> dict[str, tuple[float, float]]:
    """Module -> (median self seconds, median cumulative seconds) from ``-X importtime``."""
    samples: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", child_source(label)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=child_env(label),
        )
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, cumulative_us, name = line.removeprefix("import time:").split("|", 2)
            samples[name.strip()].append((int(self_us), int(cumulative_us)))
    return {
        name: (
            statistics.median(s for s, _ in values) / 1e6,
            statistics.median(c for _, c in values) / 1e6,
        )
        for name, values in samples.items()
    }


def top(costs: dict[str, tuple[float, float]], index: int, n: int = 10) -> list[tuple[str, float]]:
    ranked = sorted(costs.items(), key=lambda item: item[1][index], reverse=True)
    return [(name, values[index]) for name, values in ranked[:n]]


def by_package(costs: dict[str, tuple[float, float]], n: int = 10) -> list[tuple[str, float]]:
    """Self time summed per top-level package: which distribution the import time goes to."""
    totals: dict[str, float] = defaultdict(float)
    for name, (self_seconds, _) in costs.items():
        totals[name.split(".")[0]] += self_seconds
    return sorted(totals.items(), key=lambda item: item[1], reverse=True)[:n]


def verdict(seconds: float) -> str:
    return "PASS" if seconds <= TARGET_SECONDS else "MISS"


def print_report(result: dict[str, Any]) -> None:
    summaries: dict[str, Summary] = result["summaries"]
    print(f"bytecode compile (idempotent): {result['compile_seconds']:.2f} s")
    print(f"load average before measuring: {result['load_average']:.2f} ({os.cpu_count()} CPUs)")
    print(f"cold start: import of the handler module, {result['runs']} fresh processes each")
    print()
    header = f"{'server':<10} {'median s':>9} {'min s':>8} {'max s':>8} {'process wall s':>15}  target"
    print(header)
    print("-" * len(header))
    for label, summary in summaries.items():
        print(
            f"{label:<10} {summary.median:>9.3f} {summary.min:>8.3f} {summary.max:>8.3f} "
            f"{summary.process_wall_median:>15.3f}  <= {TARGET_SECONDS:.2f} s {verdict(summary.median)}"
        )
    print()
    print(f"ratio a2a-sdk / ours (median import): {result['ratio']:.2f}x")
    print()
    print("our handler as deployed (ours-aws), -X importtime (median of 3), top 10 cumulative:")
    for name, seconds in result["top_cumulative"]:
        print(f"  {seconds * 1000:>8.1f} ms  {name}")
    print("our handler, top 10 self (the module's own body, excluding its imports):")
    for name, seconds in result["top_self"]:
        print(f"  {seconds * 1000:>8.1f} ms  {name}")
    print("our handler, self time summed per top-level package (top 10):")
    for name, seconds in result["by_package"]:
        print(f"  {seconds * 1000:>8.1f} ms  {name}")
    functions = result["functions"]
    if functions:
        runs = len(next(iter(functions.values())).samples)
        print()
        print(f"each function as deployed, from its own bundle, against moto (median of {runs} rounds);")
        print("a2a-sdk: its in-memory handler, import then its first message/send:")
        print("\n".join(function_cold_start.report(functions)))
        api, sdk = functions["api"], functions[function_cold_start.SDK]
        for kind in ("wall", "cpu"):
            ratio = api.median(f"import_{kind}") / sdk.median(f"import_{kind}")
            target = f"target <= {TARGET_RATIO:.2f}x {'PASS' if ratio <= TARGET_RATIO else 'MISS'}"
            print(f"API function / a2a-sdk, import + build ({kind}): {ratio:.2f}x ({target})")
    print_v1(result)
    print(f"load average after measuring: {result['load_average_after']:.2f}")


def print_v1(result: dict[str, Any]) -> None:
    v1 = result["v1"]
    if not v1:
        return
    runs = len(next(iter(v1.values())).samples)
    print()
    print(
        f"cold start serving one request: import + build, then the first request (median of {runs} rounds);"
    )
    print(
        "ours-deployed: the API function's bundle on moto; floor: Starlette + Mangum + pydantic, one route:"
    )
    print("\n".join(v1_cold_start.report(v1)))
    imports = result["v1_request_imports"]
    print(
        f"our first 1.0 JSON-RPC request (memory backend), -X importtime (median of 3): "
        f"{sum(s for s, _ in imports.values()) * 1000:.1f} ms of imports, top 10 self:"
    )
    for name, seconds in top(imports, 0):
        print(f"  {seconds * 1000:>8.1f} ms  {name}")


def deployed(
    function_runs: int, v1_runs: int, *, smoke: bool = False
) -> tuple[dict[str, function_cold_start.FunctionSummary], dict[str, function_cold_start.FunctionSummary]]:
    """The functions from their bundles against moto, then the cold starts serving a 1.0 request
    (ours as deployed among them), in the same bundles and stage. ``smoke``: the API function
    only, without warm-up rounds."""
    if not function_runs and not v1_runs:
        return {}, {}
    variants = function_cold_start.FUNCTIONS[:1] if smoke else function_cold_start.FUNCTIONS
    with function_cold_start.world(variants) as world:
        warmup = not smoke
        functions = function_cold_start.measure(function_runs, world, warmup=warmup) if function_runs else {}
        v1 = v1_cold_start.measure(v1_runs, world, warmup=warmup) if v1_runs else {}
    return functions, v1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9, help="fresh processes per server (>= 7)")
    parser.add_argument(
        "--function-runs", type=int, default=7, help="rounds of the per-function cold starts (0: skip them)"
    )
    parser.add_argument(
        "--v1-runs",
        type=int,
        default=9,
        help="rounds of the cold starts serving a 1.0 request (0: skip them)",
    )
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser, runs=1, function_runs=1, v1_runs=1)
    if args.runs < 7 and not args.smoke:
        parser.error("--runs must be at least 7")

    compile_seconds = compile_bytecode()
    load_average = os.getloadavg()[0]
    summaries = measure(args.runs)
    # The deployed configuration: where the time goes.
    costs = import_costs("ours-aws", runs=1 if args.smoke else IMPORTTIME_RUNS)
    functions, v1 = deployed(args.function_runs, args.v1_runs, smoke=args.smoke)
    v1_imports = v1_cold_start.request_imports(runs=1 if args.smoke else 3) if args.v1_runs else {}
    ours, sdk = summaries["ours"], summaries["a2a-sdk"]
    result: dict[str, Any] = {
        "compile_seconds": compile_seconds,
        "runs": args.runs,
        "summaries": summaries,
        "ratio": sdk.median / ours.median,
        "top_cumulative": top(costs, 1),
        "top_self": top(costs, 0),
        "by_package": by_package(costs),
        "load_average": load_average,
        "functions": functions,
        "v1": v1,
        "v1_request_imports": v1_imports,
        "load_average_after": os.getloadavg()[0],
    }
    if args.json:
        payload = {
            "benchmark": "cold_start",
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "target_seconds": TARGET_SECONDS,
            "runs": args.runs,
            "compile_seconds": compile_seconds,
            "load_average": load_average,
            "servers": {
                label: {**asdict(summary), "verdict": verdict(summary.median)}
                for label, summary in summaries.items()
            },
            "ratio_sdk_over_ours": result["ratio"],
            "importtime_top_cumulative_seconds": dict(result["top_cumulative"]),
            "importtime_top_self_seconds": dict(result["top_self"]),
            "importtime_self_by_package_seconds": dict(result["by_package"]),
            "functions_as_deployed": {name: summary.as_json() for name, summary in functions.items()},
            "v1_request": {
                name: summary.as_json() | {"ratio_to_sdk_wall_cpu": v1_cold_start.ratios(v1, name)}
                for name, summary in v1.items()
            },
            "v1_request_imports_seconds": {name: self for name, (self, _) in v1_imports.items()},
            "load_average_after": result["load_average_after"],
        }
        print(json.dumps(payload, indent=2))
    else:
        print_report(result)


if __name__ == "__main__":
    main()
