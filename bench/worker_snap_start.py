"""The worker function's cold start with a framework agent, plain and on SnapStart's restore path.

The project ``a2a-serverless init --template strands`` makes (its agent on the template's scripted
model, ``scripted:agent``, so no model is called) is served by the worker handler
(`a2a_core.functions.worker.handler`) in a fresh interpreter of the framework's environment
(``.venv-frameworks/strands``, ``make setup``), with the worker's environment pointed at moto in
this process (`function_trace.stage`), serving one SQS batch: a run operation (the turn: the
agent built for its context, its session read and written, its answer stored) and a malformed
record. Each round times, as CPU time of the child (`function_trace.child`):

- plain: the handler's import (settings, adapters, the framework and the agent imported and
  built) + the first batch: what a cold start costs;
- SnapStart: the same import and the before-snapshot hooks (priming), done once per published
  version, off every cold path; then the after-restore hooks (randomness reseeded, connections
  and credentials dropped) + the first batch: what a restored environment costs.

The target: restore path <= 0.2x the plain cold start. Lambda's own restore of the microVM is not
measurable here (AWS: "as low as sub-second").

    .venv/bin/python bench/worker_snap_start.py [--runs 5] [--template strands] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # function_trace/ lives beside the package, it is not installed
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402
from function_trace.runner import Stage, Variant, run_handler  # noqa: E402
from function_trace.variants import ExerciseError  # noqa: E402

TEMPLATES = {"strands": "strands-agents"}  # template -> the framework's distribution
TARGET = 0.2
WORKER = Variant("worker")


@dataclass(frozen=True)
class Sample:
    """One round, CPU seconds: the plain cold start's parts, and the SnapStart child's."""

    import_cpu: float
    turn_cpu: float
    snapshot_import_cpu: float
    prime_cpu: float
    restore_cpu: float
    restored_turn_cpu: float

    @property
    def cold(self) -> float:
        return self.import_cpu + self.turn_cpu

    @property
    def restored(self) -> float:
        return self.restore_cpu + self.restored_turn_cpu


def framework_python(template: str) -> Path:
    python = ROOT / ".venv-frameworks" / template / "bin" / "python"
    if not python.exists():
        sys.exit(f"{python} is missing: `make setup` builds the framework environments")
    return python


def make_project(template: str, scratch: Path) -> list[Path]:
    """The project ``init`` makes: the paths its worker imports from (tests/ holds the scripted agent)."""
    root = scratch / "counter"
    command = [sys.executable, "-m", "a2a_core.cli", "init", str(root), "--template", template]
    subprocess.run([*command, "--kit-source", str(ROOT)], check=True, capture_output=True, timeout=120)
    return [root / "tests", root / "src"]


def site_paths(python: Path) -> list[Path]:
    """The framework environment's site-packages and the kit's source: what ``-S`` leaves out."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)
    return [Path(site.stdout.strip()), ROOT / "src"]


def versions(python: Path, template: str) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, platform, json; "
        f"print(json.dumps({{'python': platform.python_version(), '{TEMPLATES[template]}': "
        f"m.version('{TEMPLATES[template]}'), 'a2a-sdk': m.version('a2a-sdk')}}))"
    )
    done = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)
    found: dict[str, str] = json.loads(done.stdout)
    return found


def turn(stage: Stage, python: Path, paths: list[Path], *, snap_start: bool) -> dict[str, Any]:
    """One cold start serving one batch; what the child wrote, its answer checked."""
    requests = stage.requests(WORKER)
    env = {**stage.env(WORKER), "A2A_AGENT": "scripted:agent"}
    result, _ = run_handler(
        "a2a_core.functions.worker.handler",
        requests.events,
        env,
        paths,
        function_name="Worker",
        timeout_seconds=900,
        snap_start=snap_start,
        interpreter=str(python),
        timeout=300,
    )
    try:
        requests.check(result["requests"])
    except (KeyError, TypeError, IndexError) as error:
        raise ExerciseError(f"the worker answered {result['requests']}") from error
    return result


def measure(template: str, runs: int) -> tuple[list[Sample], dict[str, str]]:
    python = framework_python(template)
    with tempfile.TemporaryDirectory(prefix="a2a-bench-worker-snap-") as scratch, Stage() as stage:
        paths = [*make_project(template, Path(scratch)), *site_paths(python)]
        samples = []
        for round_ in range(runs + 1):  # the first round writes bytecode and fills the page cache
            plain = turn(stage, python, paths, snap_start=False)
            snap = turn(stage, python, paths, snap_start=True)
            if round_:
                samples.append(
                    Sample(
                        plain["import_cpu_seconds"],
                        plain["requests"][0]["cpu_seconds"],
                        snap["import_cpu_seconds"],
                        snap["snapshot_cpu_seconds"],
                        snap["restore_cpu_seconds"],
                        snap["requests"][0]["cpu_seconds"],
                    )
                )
        return samples, versions(python, template)


def report(template: str, samples: list[Sample], found: dict[str, str]) -> list[str]:
    def ms(values: list[float]) -> str:
        return f"{1000 * statistics.median(values):>8.0f}"

    cold = [s.cold for s in samples]
    restored = [s.restored for s in samples]
    ratio = statistics.median(r / c for r, c in zip(restored, cold, strict=True))
    verdict = "met" if ratio <= TARGET else "MISSED"
    pinned = ", ".join(f"{name} {version}" for name, version in found.items())
    return [
        f"The worker's cold start, {template} template ({pinned}), CPU ms, medians of {len(samples)}",
        "",
        f"{'plain: import + build':<44} {ms([s.import_cpu for s in samples])}",
        f"{'plain: first batch (one turn)':<44} {ms([s.turn_cpu for s in samples])}",
        f"{'plain cold start':<44} {ms(cold)}",
        f"{'SnapStart, once per version: import + build':<44} {ms([s.snapshot_import_cpu for s in samples])}",
        f"{'SnapStart, once per version: prime':<44} {ms([s.prime_cpu for s in samples])}",
        f"{'restore path: after-restore hooks':<44} {ms([s.restore_cpu for s in samples])}",
        f"{'restore path: first batch (one turn)':<44} {ms([s.restored_turn_cpu for s in samples])}",
        f"{'restore path':<44} {ms(restored)}",
        "",
        f"restore path / plain cold start: {ratio:.3f}x (target <= {TARGET}x: {verdict})",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="rounds measured (after one discarded)")
    parser.add_argument("--template", choices=TEMPLATES, default="strands")
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser, runs=1)
    samples, found = measure(args.template, args.runs)
    if args.json:
        ratio = statistics.median(s.restored / s.cold for s in samples)
        body = {"samples": [asdict(s) for s in samples], "versions": found, "restore_ratio": ratio}
        print(json.dumps({"benchmark": "worker_snap_start", "template": args.template, **body}))
        return
    print("\n".join(report(args.template, samples, found)))


if __name__ == "__main__":
    main()
