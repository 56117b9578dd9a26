"""Around a function's cold start (`a2a_core.functions.cold_start`): in Lambda the collector
pauses during the cold start and what it built is frozen; under SnapStart the API function primes
itself before the snapshot (without calling AWS) and, after each restore, reseeds randomness and
drops the snapshot's connections. Each case is a fresh interpreter, as a cold start is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "function_trace" / "runtime"  # the runtime's snapshot_restore_py, stood in for
# The API function as deployed, its AWS endpoints a closed port: any call to AWS would fail.
DEPLOYED = {
    "A2A_BACKEND": "aws",
    "A2A_AUTH_MODE": "api_key",
    "A2A_AWS_REGION": "eu-west-1",
    "A2A_AWS_ENDPOINT_URL": "http://127.0.0.1:9",
    "A2A_TABLE_NAME": "tasks",
    "A2A_BUCKET_NAME": "bodies",
    "A2A_QUEUE_URL": "http://127.0.0.1:9/123456789012/runs",
    "A2A_DLQ_URL": "http://127.0.0.1:9/123456789012/runs-dlq",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}

CHILD = """
import gc, json, logging, random, sys
warnings = []
class Kept(logging.Handler):
    def emit(self, record):
        warnings.append(record.getMessage())
logging.getLogger().addHandler(Kept(logging.WARNING))
import a2a_core.functions.api.handler as handler
seen = {"after_import": {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}}
if "snapshot_restore_py" in sys.modules:
    import snapshot_restore_py as hooks
    hooks.run_before_snapshot()
    seen["after_snapshot"] = {
        "enabled": gc.isenabled(),
        "frozen": gc.get_freeze_count(),
        "v1_codec_loaded": "a2a_core.protocol.v1.codec" in sys.modules,
    }
    pool = handler.adapters.clients.dynamodb.pool
    closed = []
    pool._idle.append(type("Connection", (), {"close": lambda self: closed.append(1)})())
    state = random.getstate()
    hooks.run_after_restore()
    seen["after_restore"] = {
        "random_reseeded": random.getstate() != state,
        "idle_connections": len(pool._idle),
        "closed": len(closed),
    }
seen["warnings"] = warnings
print(json.dumps(seen))
"""


def cold_start(**env: str) -> dict[str, Any]:
    paths = [str(RUNTIME), str(ROOT / "src")]
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", CHILD],
        env={**os.environ, **DEPLOYED, "PYTHONPATH": os.pathsep.join(paths), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return seen


@pytest.fixture(autouse=True)
def _no_lambda(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_INITIALIZATION_TYPE"):
        monkeypatch.delenv(name, raising=False)


def test_in_lambda_what_the_cold_start_built_is_frozen_and_collection_resumes() -> None:
    seen = cold_start(AWS_LAMBDA_FUNCTION_NAME="Api")
    assert seen["after_import"]["enabled"]
    assert seen["after_import"]["frozen"] > 10_000
    assert seen["warnings"] == []


def test_outside_lambda_the_collector_is_left_alone() -> None:
    seen = cold_start()
    assert seen["after_import"] == {"enabled": True, "frozen": 0}


def test_under_snapstart_the_api_primes_before_the_snapshot_and_reconnects_after_a_restore() -> None:
    seen = cold_start(AWS_LAMBDA_FUNCTION_NAME="Api", AWS_LAMBDA_INITIALIZATION_TYPE="snap-start")
    # Nothing is frozen until the snapshot, and the collector waits for it.
    assert seen["after_import"] == {"enabled": False, "frozen": 0}
    snapshot = seen["after_snapshot"]
    assert snapshot["enabled"]
    assert snapshot["frozen"] > 10_000
    assert snapshot["v1_codec_loaded"]  # what a first 1.0 request imports is in the snapshot
    # Priming served its requests (no warning) without calling AWS (a closed port here).
    assert seen["warnings"] == []
    assert seen["after_restore"] == {"random_reseeded": True, "idle_connections": 0, "closed": 1}
