"""One Lambda function's cold start in a fresh interpreter: import its handler, then serve requests.

Run by `function_trace.runner` as ``python -S -P child.py SPEC OUT`` with only a bundle (or a
site holding what a bundle could hold) on ``PYTHONPATH``, so an import the function makes is an
import from what it ships. Standard library only, and nothing imported before the handler but
``json`` (which Lambda's runtime has loaded too), so the timings and ``sys.modules`` are the
function's own.

SPEC (JSON): ``mode`` ``lambda`` (import ``module``, then call its ``handler`` with each of
``events``; with ``snap_start``, between the two, run the function's SnapStart hooks as Lambda
does when it takes a snapshot and when it restores one, timed apart) or ``web`` (run uvicorn on
``module:app`` as the bundle's ``run.sh`` does, until SIGTERM); ``context`` the Lambda
context's name, timeout and memory; ``patch`` an optional name from `PATCHES`. OUT receives the
timings (wall clock, and this process's CPU time, which a busy machine disturbs far less), each
answer and every module imported.
"""

from __future__ import annotations

import atexit
import json
import sys
import time

# Nothing that the handler would import itself is imported before it (typing included), so its
# import time is all its own; the names below exist for the type checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import ModuleType
    from typing import Any


class LambdaContext:
    """The attributes of the Lambda runtime's context object that handlers and Powertools read."""

    def __init__(self, function_name: str, timeout_seconds: float, memory_mb: int) -> None:
        import uuid

        self.function_name = function_name
        self.memory_limit_in_mb = memory_mb
        self.aws_request_id = str(uuid.uuid4())
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "exercise"
        self.function_version = "$LATEST"
        self._deadline = time.monotonic() + timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def allow_loopback_webhooks(module: object) -> None:
    """The push function refuses plain-http loopback webhooks (as it must in AWS); the exercise's
    receiver listens on 127.0.0.1, so its URL policy is swapped for the dev server's."""
    from a2a_core.push.urls import UrlPolicy

    module.notifier.sender.policy = UrlPolicy(allow_insecure_loopback=True)  # type: ignore[attr-defined]


PATCHES = {"allow_loopback_webhooks": allow_loopback_webhooks}


def modules() -> dict[str, list[bool]]:
    """Every imported module: whether it is a package, and whether it came from a file (modules
    an extension module registers itself, such as cryptography's ``_openssl``, did not)."""
    return {
        name: [hasattr(module, "__path__"), bool(getattr(module, "__file__", None))]
        for name, module in list(sys.modules.items())
        if module
    }


class ImportRecorder:
    """Records who imports what: ``(importer, imported)`` for every import statement and
    ``importlib.import_module`` call, also those answered from ``sys.modules``. A distribution
    imported only by a module whose own import then failed (an optional import, such as httpx's
    command line pulling in click) is then known to be unneeded."""

    def __init__(self) -> None:
        import builtins
        import importlib

        self.edges: set[tuple[str, str]] = set()
        self._import = builtins.__import__
        self._import_module = importlib.import_module
        builtins.__import__ = self.dunder_import
        importlib.import_module = self.import_module

    def dunder_import(
        self,
        name: str,
        globals: Mapping[str, object] | None = None,
        locals: Mapping[str, object] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> ModuleType:
        importer = str((globals or {}).get("__name__", "?"))
        module = self._import(name, globals, locals, fromlist, level)
        if level:
            package = str((globals or {}).get("__package__") or importer.rpartition(".")[0])
            base = package.rsplit(".", level - 1)[0] if level > 1 else package
            name = f"{base}.{name}" if name else base
        self.edges.add((importer, name))
        for item in fromlist or ():
            if f"{name}.{item}" in sys.modules:
                self.edges.add((importer, f"{name}.{item}"))
        return module

    def import_module(self, name: str, package: str | None = None) -> Any:
        module = self._import_module(name, package)
        self.edges.add((sys._getframe(1).f_globals.get("__name__", "?"), module.__name__))
        return module


def run_lambda(spec: dict[str, Any], result: dict[str, Any]) -> None:
    import importlib

    start, cpu = time.perf_counter(), time.process_time()
    module = importlib.import_module(spec["module"])
    result["import_seconds"] = time.perf_counter() - start
    result["import_cpu_seconds"] = time.process_time() - cpu
    result["modules_after_import"] = modules()
    if spec.get("snap_start"):
        snapshot_and_restore(result)
    if spec.get("patch"):
        PATCHES[spec["patch"]](module)
    handler = module.handler
    for event in spec["events"]:
        context = LambdaContext(**spec["context"])
        start, cpu = time.perf_counter(), time.process_time()
        try:
            answer = {"response": handler(event, context)}
        except Exception as error:  # noqa: BLE001 (an authorizer answers 401 by raising)
            answer = {"raised": f"{type(error).__name__}: {error}"}
        answer["seconds"] = time.perf_counter() - start
        answer["cpu_seconds"] = time.process_time() - cpu  # this process's CPU (not moto's)
        result["requests"].append(answer)


def snapshot_and_restore(result: dict[str, Any]) -> None:
    """The hooks of the runtime's ``snapshot_restore_py`` (the stand-in in ``runtime/``): those
    before the snapshot (priming: off the cold path, done once per published version), then those
    after a restore (on the cold path of every environment resumed from the snapshot)."""
    import snapshot_restore_py as hooks  # type: ignore[import-not-found]

    start, cpu = time.perf_counter(), time.process_time()
    hooks.run_before_snapshot()
    result["snapshot_seconds"] = time.perf_counter() - start
    result["snapshot_cpu_seconds"] = time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    hooks.run_after_restore()
    result["restore_seconds"] = time.perf_counter() - start
    result["restore_cpu_seconds"] = time.process_time() - cpu


def run_web(spec: dict[str, Any], result: dict[str, Any]) -> None:
    import runpy
    import signal

    # uvicorn shuts down on SIGTERM, then raises it again for the handler it found: exit cleanly,
    # so the result is written.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sys.argv = ["uvicorn", f"{spec['module']}:app", *spec["args"]]
    runpy.run_module("uvicorn", run_name="__main__", alter_sys=True)


def main() -> None:
    spec_path, out_path = sys.argv[1], sys.argv[2]
    with open(spec_path) as file:
        spec = json.load(file)
    result: dict[str, Any] = {"requests": []}
    recorder = ImportRecorder() if spec.get("record_imports") else None

    def write() -> None:
        result["modules"] = modules()
        result["imports"] = sorted(recorder.edges) if recorder else []
        with open(out_path, "w") as file:
            json.dump(result, file, default=repr)

    atexit.register(write)  # uvicorn leaves through SystemExit
    (run_web if spec["mode"] == "web" else run_lambda)(spec, result)


if __name__ == "__main__":
    main()
