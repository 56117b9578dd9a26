"""Cold-start each Lambda function in a fresh interpreter and serve it real requests, on moto.

For every `Variant` (a function under one deployment's settings) a child interpreter
(`function_trace/child.py`, ``python -S -P``) sees only ``paths``: a bundle with what the Lambda
runtime provides, or a bundle-like site (`install_site`: every locked runtime wheel for this
machine, compiled as bundles are) and the installed ``a2a_core``. With the environment the CDK
stack gives that function, pointed at moto, it imports the handler and then serves the requests
the `Stage` has for it (`function_trace.stage`), every answer checked, so a trace never stands for
a run that failed half-way. Used by `function_trace.tracing` (what each function imports), the
bundle test (bundles serve their requests alone) and the benchmarks (timings).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import a2a_core
from a2a_core.bundling.build import UVICORN_OPTIONS
from a2a_core.bundling.bytecode import compile_bytecode
from a2a_core.bundling.uv import find_uv, run
from a2a_core.bundling.wheels import install_wheels
from function_trace.api_round import api_requests, check_api, request_context_header
from function_trace.stage import Stage
from function_trace.variants import FUNCTION_NAMES, ExerciseError, Variant

ROOT = Path(__file__).resolve().parent.parent  # the a2a-serverless repository
CHILD = Path(__file__).resolve().parent / "child.py"
# What the Lambda Python runtime provides for SnapStart's hooks (stood in for).
SNAPSHOT_RUNTIME = Path(__file__).resolve().parent / "runtime"
# The extras every function's imports come from.
EXTRAS = ("aws", "web")
TIMEOUTS = {"api": 29.0, "worker": 900.0, "dlq": 60.0, "push": 60.0, "authorizer": 10.0}
__all__ = [
    "ExerciseError",
    "Run",
    "Stage",
    "Variant",
    "exercise",
    "install_site",
    "run_handler",
    "source_paths",
]


@dataclass
class Run:
    variant: Variant
    import_seconds: float
    request_seconds: list[float]
    import_cpu_seconds: float  # the child's CPU time: steadier than wall time on a busy machine
    request_cpu_seconds: list[float]
    # Every module imported by the end: [is a package, came from a file].
    modules: dict[str, list[bool]]
    modules_after_import: dict[str, list[bool]]
    imports: list[tuple[str, str]]  # (importer, imported), when recorded
    wall_seconds: float  # the whole child process, interpreter start-up and exit included


def host_platform() -> str:
    return {"x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}[platform.machine()]


def install_site(output: Path, root: Path = ROOT) -> Path:
    """Every locked runtime wheel any function could import (the repository's ``uv.lock``, its
    ``aws`` and ``web`` extras), for this machine, compiled as bundles are."""
    uv = find_uv(root)
    command = [uv, "export", "--project", str(root), "--frozen", "--no-emit-project", "--no-hashes"]
    command += ["--no-header", "--no-annotate", "--no-default-groups", *(f"--extra={e}" for e in EXTRAS)]
    requirements = run(command, "export the locked runtime requirements").stdout
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    install_wheels(output, requirements, platform=host_platform(), python_version=version, uv=uv)
    compile_bytecode(output, sys.executable)
    return output


def exercise(
    stage: Stage,
    variant: Variant,
    paths: Sequence[Path],
    *,
    record_imports: bool = False,
    first_only: bool = False,
    timeout: float = 120.0,
) -> Run:
    """Cold-start ``variant`` in a fresh interpreter that imports from ``paths`` only (a bundle,
    or `source_paths`), serve its requests (``first_only``: the first, for timing), check every
    answer; ``record_imports`` records who imports what (slower: not for timing)."""
    if variant.function == "api" and variant.server == "uvicorn":
        return _exercise_web(stage, variant, paths, record_imports, timeout)
    requests = stage.requests(variant, first_only=first_only)
    result, wall = run_handler(
        f"a2a_core.functions.{variant.function}.handler",
        requests.events,
        stage.env(variant),
        paths,
        function_name=FUNCTION_NAMES[variant.function],
        timeout_seconds=TIMEOUTS[variant.function],
        patch=requests.patch,
        record_imports=record_imports,
        timeout=timeout,
    )
    try:
        requests.check(result["requests"])
    except (KeyError, TypeError, IndexError) as error:
        raise ExerciseError(f"{variant.label}: unexpected answers {result['requests']}") from error
    return Run(
        variant=variant,
        import_seconds=result["import_seconds"],
        request_seconds=[r["seconds"] for r in result["requests"]],
        import_cpu_seconds=result["import_cpu_seconds"],
        request_cpu_seconds=[r["cpu_seconds"] for r in result["requests"]],
        modules=result["modules"],
        modules_after_import=result["modules_after_import"],
        imports=[(a, b) for a, b in result["imports"]],
        wall_seconds=wall,
    )


def run_handler(
    module: str,
    events: list[dict[str, Any]],
    env: Mapping[str, str],
    paths: Sequence[Path],
    *,
    function_name: str = "Function",
    timeout_seconds: float = 60.0,
    patch: str | None = None,
    record_imports: bool = False,
    timeout: float = 120.0,
    snap_start: bool = False,
    interpreter: str | None = None,
) -> tuple[dict[str, Any], float]:
    """Import ``module`` in a fresh interpreter seeing only ``paths`` and call its ``handler``
    with each event: what the child wrote (`function_trace.child`), and the process's wall time.
    ``snap_start``: initialized as SnapStart initializes a version, its snapshot hooks run, then
    its restore hooks, before the events (the runtime's hook library, `SNAPSHOT_RUNTIME`, is on
    its path). ``interpreter``: another Python than this one (a framework's environment)."""
    spec = {
        "mode": "lambda",
        "module": module,
        "events": events,
        "context": {"function_name": function_name, "timeout_seconds": timeout_seconds, "memory_mb": 256},
        "patch": patch,
        "record_imports": record_imports,
        "snap_start": snap_start,
    }
    if snap_start:
        env = {**env, "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"}
        paths = [*paths, SNAPSHOT_RUNTIME]
    return _run_child(spec, env, paths, timeout, interpreter)


def _exercise_web(
    stage: Stage, variant: Variant, paths: Sequence[Path], record_imports: bool, timeout: float
) -> Run:
    import httpx

    port = _free_port()
    spec = {
        "mode": "web",
        "record_imports": record_imports,
        "module": "a2a_core.functions.api.handler",
        "args": ["--host", "127.0.0.1", "--port", str(port), *UVICORN_OPTIONS],
    }
    headers = {"content-type": "application/json", **request_context_header(variant)}
    started = time.perf_counter()
    with _child(spec, stage.env(variant), paths) as (process, result):
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=30, headers=headers) as client:
            _wait_healthy(client, process, timeout)
            answers = []
            for method, path, body, _, extra in api_requests(variant):
                content = body if isinstance(body, str) or body is None else json.dumps(body)
                with client.stream(method, path, content=content, headers=extra) as response:
                    if response.headers.get("content-type", "").startswith("text/event-stream"):
                        text = _first_event(response.iter_lines())  # incremental: it would wait for the agent
                    else:
                        text = response.read().decode()
                    answers.append((response.status_code, text))
        process.send_signal(signal.SIGTERM)
        process.wait(timeout)
    check_api(variant, answers)
    return Run(
        variant=variant,
        import_seconds=float("nan"),
        request_seconds=[],
        import_cpu_seconds=float("nan"),
        request_cpu_seconds=[],
        modules=result["modules"],
        modules_after_import=result["modules"],
        imports=[(a, b) for a, b in result["imports"]],
        wall_seconds=time.perf_counter() - started,
    )


def source_paths(site: Path) -> tuple[Path, ...]:
    """A site, then the installed ``a2a_core``: what a bundle would hold."""
    return (site, Path(a2a_core.__file__).resolve().parent.parent)


def child_env(env: Mapping[str, str], paths: Sequence[Path]) -> dict[str, str]:
    """What the child sees: ``paths`` and the standard library, nothing else."""
    path = os.pathsep.join(str(p) for p in paths)
    return {**env, "PATH": os.environ.get("PATH", ""), "PYTHONPATH": path, "PYTHONHASHSEED": "0"}


def _run_child(
    spec: dict[str, Any],
    env: Mapping[str, str],
    paths: Sequence[Path],
    timeout: float,
    interpreter: str | None = None,
) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    with _child(spec, env, paths, interpreter) as (process, result):
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise ExerciseError(f"{spec['module']} did not finish within {timeout} s") from None
        wall = time.perf_counter() - started
    return result, wall


@contextlib.contextmanager
def _child(
    spec: Mapping[str, Any], env: Mapping[str, str], paths: Sequence[Path], interpreter: str | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], dict[str, Any]]]:
    """The child running ``spec``; once it has ended, the dict holds what it wrote. Raises
    `ExerciseError` with its stderr if it fails."""
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="a2a-exercise-") as scratch:
        spec_file, out, errors = (Path(scratch) / name for name in ("spec.json", "out.json", "stderr"))
        spec_file.write_text(json.dumps(spec))
        command = [interpreter or sys.executable, "-S", "-P", str(CHILD), str(spec_file), str(out)]
        with (
            errors.open("wb") as stderr,
            subprocess.Popen(  # noqa: S603
                command, env=child_env(env, paths), cwd=scratch, stdout=subprocess.DEVNULL, stderr=stderr
            ) as process,
        ):
            try:
                yield process, result
            except ExerciseError as error:
                process.kill()
                process.wait()
                raise ExerciseError(f"{error}; its stderr:\n{errors.read_text()[-3000:]}") from None
            finally:
                if process.poll() is None:
                    process.kill()
                process.wait()
        if process.returncode != 0 or not out.exists():
            raise ExerciseError(
                f"{spec['module']} exited with {process.returncode}:\n{errors.read_text()[-3000:]}"
            )
        result.update(json.loads(out.read_text()))


def _wait_healthy(client: Any, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ExerciseError("uvicorn exited before serving /healthz")
        with contextlib.suppress(OSError, Exception):
            if client.get("/healthz").status_code == 200:
                return
        time.sleep(0.05)
    raise ExerciseError("uvicorn did not serve /healthz in time")


def _first_event(lines: Iterator[str]) -> str:
    for line in lines:
        if line.startswith("data:"):
            return line
    raise ExerciseError("the stream ended before its first event")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
