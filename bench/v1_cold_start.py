"""Cold start serving a 1.0 request: import + build, then the first request, ours against
a2a-sdk 1.3's own server in the same run.

Each case is a fresh ``python -S -P`` interpreter (`infra.exercise.run_handler`, the child of the
per-function cold starts) that times, wall clock and its own CPU time, the import of a handler
module and then its first request, checked as `workloads` checks every answer:

- ``ours``: `functions/api/handler.py` on the memory backend, from this venv and ``src/``;
- ``ours-botocore``: ``ours-deployed`` (below) with ``A2A_AWS_CLIENT=botocore``: its first request
  imports botocore and builds its DynamoDB and SQS clients, as every deployment did before the
  lean client;
- ``ours-deployed``: the API function's own bundle with the stack's settings (REST API, API
  keys, push) against moto, as `function_cold_start` runs it: its first request writes the task
  and queues its run (the lean AWS client, `a2a_core.aws.json_client`);
- ``ours-snapstart``: the same bundle initialized as SnapStart initializes a published version
  (``AWS_LAMBDA_INITIALIZATION_TYPE=snap-start``: the cold start, then its before-snapshot hook,
  which primes it), then its after-restore hook and the first request: what a restored
  environment's own code does. Its "import + build" column is that restore hook; the snapshot's
  init and priming, done once per published version, are reported apart. Resuming the microVM
  from the snapshot is Lambda's work, outside any process here: not measured;
- ``a2a-sdk``: `bench/sdk_handler.py` (in memory; its echo agent runs inside the request);
- ``floor``: `bench/stack_floor.py`, Starlette + Mangum + pydantic with one validated route: what
  the libraries cost before any A2A code runs.

Requests: ``1.0-jsonrpc`` (``SendMessage``, ``A2A-Version: 1.0``), ``1.0-rest``
(``POST /message:send``), and ``0.3`` (``message/send``) beside them for what the 1.0 modules,
loaded on the first 1.0 request, add. The target: ours (import + first 1.0 request) <= 0.5x
a2a-sdk's, per protocol.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import sysconfig
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from function_cold_start import FunctionSummary, Sample, World
from function_trace.api_round import EVENTS, TEMPLATES
from function_trace.runner import run_handler, source_paths
from function_trace.variants import Variant
from workloads import WORKLOADS

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 0.5
V1 = ("1.0-jsonrpc", "1.0-rest")
LAMBDA_ENV = {"AWS_LAMBDA_FUNCTION_NAME": "Api"}  # set by Lambda; our handler then freezes (gc)
# The cases run from the API function's bundle, as deployed.
BUNDLED = ("ours-botocore", "ours-deployed", "ours-snapstart")


@dataclass(frozen=True)
class Config:
    name: str
    module: str
    protocols: tuple[str, ...]
    snap_start: bool = False
    env: tuple[tuple[str, str], ...] = ()  # on top of the placement's


API = "a2a_core.functions.api.handler"
CONFIGS = (
    Config("ours", API, ("0.3", *V1)),
    Config("ours-botocore", API, ("1.0-jsonrpc",), env=(("A2A_AWS_CLIENT", "botocore"),)),
    Config("ours-deployed", API, V1),
    Config("ours-snapstart", API, V1, snap_start=True),
    Config("a2a-sdk", "sdk_handler", ("0.3", *V1)),
    Config("floor", "stack_floor", ("1.0-rest",)),
)


def site() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def placement(config: Config, world: World | None) -> tuple[list[Path], dict[str, str]]:
    """Where the child imports from, and its environment."""
    if config.name == "ours":
        return list(source_paths(site())), LAMBDA_ENV | {"A2A_ALLOW_UNAUTHENTICATED": "true"}
    if config.name in BUNDLED:
        assert world is not None
        return [world.bundles["api"], world.runtime], world.stage.env(Variant("api")) | dict(config.env)
    return [ROOT / "bench", site()], LAMBDA_ENV


def api_key_caller(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as the REST API delivers it in API-key mode: the key checked, its id in the
    request context (the stack's default)."""
    template = json.loads((EVENTS / TEMPLATES["api_key"]).read_text())
    event["requestContext"]["identity"] = template["requestContext"]["identity"]
    key = template["headers"]["x-api-key"]
    event["headers"]["x-api-key"] = key
    event["multiValueHeaders"]["x-api-key"] = [key]
    return event


def run_case(config: Config, protocol: str, world: World | None) -> Sample:
    workload = WORKLOADS[protocol]
    event, message_id = workload.send(1)
    if config.name in BUNDLED:
        event = api_key_caller(event)
    paths, env = placement(config, world)
    result, wall = run_handler(
        config.module,
        [event],
        env,
        paths,
        function_name="Api",
        timeout_seconds=29,
        snap_start=config.snap_start,
    )
    (answer,) = result["requests"]
    if "response" not in answer:
        raise RuntimeError(f"{config.name} {protocol}: the handler raised {answer}")
    if config.name == "floor":
        if json.loads(answer["response"]["body"]).get("message", {}).get("messageId") != message_id:
            raise RuntimeError(f"floor answered {answer}")
    else:
        workload.sent(answer["response"], 1, message_id)
    if config.snap_start:  # on the restore path: the after-restore hooks, then the first request
        SNAPSHOTS[config.name].append(result["import_cpu_seconds"] + result["snapshot_cpu_seconds"])
        return Sample(
            result["restore_seconds"],
            result["restore_cpu_seconds"],
            answer["seconds"],
            answer["cpu_seconds"],
            wall,
        )
    return Sample(
        result["import_seconds"], result["import_cpu_seconds"], answer["seconds"], answer["cpu_seconds"], wall
    )


# Per SnapStart case: the CPU seconds of each run's init and priming (once per published version).
SNAPSHOTS: dict[str, list[float]] = defaultdict(list)


def measure(runs: int, world: World | None, *, warmup: bool = True) -> dict[str, FunctionSummary]:
    """``runs`` rounds after a discarded one (unless not ``warmup``), every case once per round;
    "config protocol" -> summary. Without ``world`` (no bundles, no moto) the bundle's cases
    (`BUNDLED`) are left out."""
    cases = [(c, p) for c in CONFIGS for p in c.protocols if world is not None or c.name not in BUNDLED]
    samples: dict[str, list[Sample]] = defaultdict(list)
    for round_ in range(0 if warmup else 1, runs + 1):
        for config, protocol in cases:
            sample = run_case(config, protocol, world)
            if round_:
                samples[f"{config.name} {protocol}"].append(sample)
    return {name: FunctionSummary(values) for name, values in samples.items()}


def sdk_key(name: str) -> str:
    config, protocol = name.split()
    return f"a2a-sdk {'1.0-rest' if config == 'floor' else protocol}"


def ratios(summaries: dict[str, FunctionSummary], name: str) -> tuple[float, float]:
    """(wall, cpu) of import + first request against a2a-sdk's for the same protocol."""
    ours, sdk = summaries[name], summaries[sdk_key(name)]
    return ours.median_total("wall") / sdk.median_total("wall"), ours.median_total("cpu") / sdk.median_total(
        "cpu"
    )


def report(summaries: dict[str, FunctionSummary]) -> list[str]:
    """One row per case (ms, wall / CPU), then the target's verdict for each of ours on 1.0."""
    header = f"{'case':<26} {'import+build':>15} {'first request':>15} {'both':>15} {'both vs a2a-sdk':>17}"
    lines = [f"{'':<26} {'wall / cpu ms':>15} {'wall / cpu ms':>15} {'wall / cpu ms':>15} {'wall / cpu':>17}"]
    lines += [header, "-" * len(header)]
    for name, s in summaries.items():
        ms = {f: s.median(f) * 1000 for f in ("import_wall", "import_cpu", "request_wall", "request_cpu")}
        wall, cpu = ratios(summaries, name)
        lines.append(
            f"{name:<26} {ms['import_wall']:>7.0f} / {ms['import_cpu']:<5.0f}"
            f" {ms['request_wall']:>7.1f} / {ms['request_cpu']:<5.1f}"
            f" {s.median_total('wall') * 1000:>7.0f} / {s.median_total('cpu') * 1000:<5.0f}"
            f" {wall:>8.2f} / {cpu:<5.2f}"
        )
    for name, cpus in SNAPSHOTS.items():
        lines.append(
            f"{name}: import+build is the after-restore hook; the snapshot's init and priming "
            f"(once per published version) took {statistics.median(cpus) * 1000:.0f} ms CPU"
        )
    lines.append("")
    for name in summaries:
        config, protocol = name.split()
        if config.startswith("ours") and protocol in V1:
            wall, cpu = ratios(summaries, name)
            verdict = "PASS" if cpu <= TARGET_RATIO else "MISS"
            lines.append(
                f"target: {name} import + first request <= {TARGET_RATIO}x a2a-sdk's: "
                f"{wall:.2f}x wall, {cpu:.2f}x CPU {verdict}"
            )
    return lines


CHILD = """\
import json, sys
sys.path[:0] = {paths!r}
import {module} as handler_module
sys.stderr.write("--- first request ---\\n")
sys.stderr.flush()
response = handler_module.handler(json.loads({event!r}), None)
assert response["statusCode"] == 200, response
"""


def request_imports(protocol: str = "1.0-jsonrpc", runs: int = 3) -> dict[str, tuple[float, float]]:
    """What our in-memory handler's first ``protocol`` request imports: module -> (median self,
    median cumulative seconds) from ``-X importtime``, the lines after the import's."""
    event, _ = WORKLOADS[protocol].send(1)
    paths, env = placement(CONFIGS[0], None)
    source = CHILD.format(paths=[str(p) for p in paths], module=CONFIGS[0].module, event=json.dumps(event))
    samples: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", source],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        after = done.stderr.split("--- first request ---\n", 1)[1]
        for line in after.splitlines():
            if line.startswith("import time:") and "self [us]" not in line:
                self_us, cumulative_us, name = line.removeprefix("import time:").split("|", 2)
                samples[name.strip()].append((int(self_us), int(cumulative_us)))
    return {
        name: (statistics.median(s for s, _ in v) / 1e6, statistics.median(c for _, c in v) / 1e6)
        for name, v in samples.items()
        if len(v) == runs
    }
