"""Each Lambda function's cold start as deployed, and its first request, next to a2a-sdk's.

Every function is bundled as the CDK stack bundles it (`a2a_core.bundling`: its own closure, for
this machine's platform, bytecode compiled, pruned botocore endpoints), with the stack's settings:
the REST API with API keys and push on, the authorizer for JWT. A fresh ``python -S -P``
interpreter sees only that bundle and what the Lambda runtime provides (this venv's boto3 family,
linked), with the function's environment pointed at moto's server in this process
(`function_trace.runner`). It times, inside the child, the import of the handler module (settings,
adapters, app; the cold start's own work) and then the first request:

- api: ``message/send`` (non-blocking) through Mangum: the task written to DynamoDB and its run
  queued on SQS, botocore imported and both clients built on the way (they are lazy);
- worker: an SQS batch (a run of the echo agent, and a malformed record);
- dlq: an SQS batch failing one task; push: the stream records of a completed task, the
  notification signed by KMS and POSTed to a receiver on 127.0.0.1; authorizer: a valid token,
  the issuer's JWKS fetched over loopback HTTP.

a2a-sdk's baseline (`bench/sdk_handler.py`, from this venv) is timed by the same child: import,
then its first ``message/send``. Requests to moto include moto's own time (same machine).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # function_trace/ lives beside the package, it is not installed

from function_trace.api_round import EVENTS as EVENT_DIR  # noqa: E402
from function_trace.api_round import TEMPLATES  # noqa: E402
from function_trace.runner import Stage, Variant, exercise, run_handler  # noqa: E402

FUNCTIONS = (
    Variant("api"),
    Variant("worker"),
    Variant("dlq"),
    Variant("push"),
    Variant("authorizer", auth="jwt"),
)
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "dateutil", "jmespath", "urllib3", "six.py")
SDK = "a2a-sdk"


@dataclass(frozen=True)
class Sample:
    """One cold start: wall-clock and CPU seconds of the import and of the first request."""

    import_wall: float
    import_cpu: float
    request_wall: float
    request_cpu: float
    process_wall: float


@dataclass(frozen=True)
class FunctionSummary:
    samples: list[Sample]

    def median(self, field: str) -> float:
        return float(statistics.median(getattr(sample, field) for sample in self.samples))

    def median_total(self, kind: str) -> float:
        """Median of import + first request, run by run (``kind``: wall or cpu)."""
        return float(
            statistics.median(
                getattr(s, f"import_{kind}") + getattr(s, f"request_{kind}") for s in self.samples
            )
        )

    def as_json(self) -> dict[str, Any]:
        fields = ("import_wall", "import_cpu", "request_wall", "request_cpu", "process_wall")
        return {
            "samples": [asdict(sample) for sample in self.samples],
            "medians": {name: self.median(name) for name in fields},
            "import_plus_first_request_median": {k: self.median_total(k) for k in ("wall", "cpu")},
        }


@contextmanager
def bundles(directory: Path, variants: tuple[Variant, ...] = FUNCTIONS) -> Iterator[dict[str, Path]]:
    """Each function's bundle for this machine, built as the CDK stack builds it."""
    from a2a_core.bundling.plan import BundleOptions, BundlePlan
    from a2a_core.project import find_project

    architecture = "x86_64" if os.uname().machine == "x86_64" else "arm64"
    version = f"{sys.version_info.major}.{sys.version_info.minor}"  # bundles this interpreter runs
    built = {}
    for variant in variants:
        options = BundleOptions(architecture=architecture, python_version=version, auth=variant.auth)
        BundlePlan(find_project(ROOT), options).bundle(variant.function).build(directory / variant.function)
        built[variant.function] = directory / variant.function
    yield built


def runtime_packages(directory: Path) -> Path:
    """What the Lambda Python runtime provides (boto3 and its dependencies), linked from this venv."""
    site = Path(sysconfig.get_paths()["purelib"])
    provided = directory / "runtime"
    provided.mkdir(exist_ok=True)
    for name in RUNTIME_PACKAGES:
        (provided / name).symlink_to(site / name)
    return provided


def sdk_event() -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENT_DIR / TEMPLATES["none"]).read_text())
    message = {"role": "user", "messageId": "m-1", "parts": [{"kind": "text", "text": "hello"}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    event["body"] = json.dumps(body)
    for headers in (event.get("headers") or {}, event.get("multiValueHeaders") or {}):
        headers.pop("content-length", None)
    return event


def measure_sdk() -> Sample:
    """a2a-sdk's handler in a fresh interpreter: its import, then its first ``message/send``."""
    site = Path(sysconfig.get_paths()["purelib"])
    result, wall = run_handler("sdk_handler", [sdk_event()], {}, [ROOT / "bench", site])
    (answer,) = result["requests"]
    response = answer.get("response") or {}
    if response.get("statusCode") != 200 or "result" not in json.loads(response.get("body") or "{}"):
        raise RuntimeError(f"a2a-sdk's handler answered {answer}")
    return Sample(
        result["import_seconds"], result["import_cpu_seconds"], answer["seconds"], answer["cpu_seconds"], wall
    )


@dataclass(frozen=True)
class World:
    """Every function's bundle, what the Lambda runtime provides, and moto's stage."""

    bundles: dict[str, Path]
    runtime: Path
    stage: Stage


@contextmanager
def world(variants: tuple[Variant, ...] = FUNCTIONS) -> Iterator[World]:
    """``variants``' bundles (the API function's is the one the 1.0 cold starts use)."""
    with (
        tempfile.TemporaryDirectory(prefix="a2a-bench-bundles-") as scratch,
        bundles(Path(scratch), variants) as built,
    ):
        runtime = runtime_packages(Path(scratch))
        with Stage() as stage:
            yield World(built, runtime, stage)


def measure(runs: int, world: World, *, warmup: bool = True) -> dict[str, FunctionSummary]:
    """``runs`` rounds (after one discarded round, unless not ``warmup``), the functions (those
    ``world`` bundled) and a2a-sdk interleaved."""
    variants = [v for v in FUNCTIONS if v.function in world.bundles]
    samples: dict[str, list[Sample]] = {v.function: [] for v in variants}
    samples[SDK] = []
    for round_ in range(0 if warmup else 1, runs + 1):
        for variant in variants:
            paths = [world.bundles[variant.function], world.runtime]
            run = exercise(world.stage, variant, paths, first_only=True)
            sample = Sample(
                run.import_seconds,
                run.import_cpu_seconds,
                run.request_seconds[0],
                run.request_cpu_seconds[0],
                run.wall_seconds,
            )
            if round_:
                samples[variant.function].append(sample)
        sdk = measure_sdk()
        if round_:
            samples[SDK].append(sdk)
    return {name: FunctionSummary(values) for name, values in samples.items()}


def report(summaries: dict[str, FunctionSummary]) -> list[str]:
    """Milliseconds, wall clock / CPU time of the function's process, and the ratios to a2a-sdk."""
    sdk = summaries[SDK]
    header = (
        f"{'function':<11} {'import+build':>15} {'first request':>15} {'process':>8}"
        f" {'import vs sdk':>15} {'import+first vs sdk':>20}"
    )
    units = f"{'wall / cpu ms':>15} {'wall / cpu ms':>15} {'wall s':>8} {'wall / cpu':>15} {'wall / cpu':>20}"
    lines = [
        f"{'':<11} {units}",
        header,
        "-" * len(header),
    ]
    for name, summary in summaries.items():
        import_ratio = [summary.median(f"import_{k}") / sdk.median(f"import_{k}") for k in ("wall", "cpu")]
        total_ratio = [summary.median_total(k) / sdk.median_total(k) for k in ("wall", "cpu")]
        ms = {
            field: summary.median(field) * 1000
            for field in ("import_wall", "import_cpu", "request_wall", "request_cpu")
        }
        lines.append(
            f"{name:<11} {ms['import_wall']:>7.0f} / {ms['import_cpu']:<5.0f}"
            f" {ms['request_wall']:>7.0f} / {ms['request_cpu']:<5.0f}"
            f" {summary.median('process_wall'):>8.2f}"
            f" {import_ratio[0]:>8.2f} / {import_ratio[1]:<4.2f}"
            f" {total_ratio[0]:>13.2f} / {total_ratio[1]:<4.2f}"
        )
    return lines
