"""The worker function's cold start: it imports only what it runs (no engine, no protocol codec,
no web app), and under SnapStart (`a2a_core.functions.worker.snapshot`) a restored environment
uses no connection, credentials or random state of the snapshot. Each case is a fresh
interpreter, as a cold start is, running the runtime's hooks as Lambda does (its
``snapshot_restore_py``, stood in for)."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from a2a_core.bundling import closures

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "function_trace" / "runtime"
# The worker as deployed, its AWS endpoints a closed port: any call to AWS would fail.
DEPLOYED = {
    "A2A_BACKEND": "aws",
    "A2A_AWS_REGION": "eu-west-1",
    "A2A_AWS_ENDPOINT_URL": "http://127.0.0.1:9",
    "A2A_TABLE_NAME": "tasks",
    "A2A_BUCKET_NAME": "bodies",
    "A2A_QUEUE_URL": "http://127.0.0.1:9/123456789012/runs",
    "A2A_DLQ_URL": "http://127.0.0.1:9/123456789012/runs-dlq",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_LAMBDA_FUNCTION_NAME": "Worker",
    "A2A_AGENT": "snap_agent:agent",
}
# The API's, which the worker never runs.
API_ONLY = ("a2a_core.protocol", "a2a_core.web", "a2a_core.core.engine", "a2a_core.server", "a2a_core.auth")
# An agent whose framework built an HTTP client at import (as a module-level Bedrock client is).
AGENT = """
import urllib3

http = urllib3.PoolManager()


async def agent(ctx):
    return "done"
"""

CHILD = """
import json, random, sys
import a2a_core.functions.worker.handler as handler
import snap_agent
seen = {"api_modules": sorted(m for m in sys.modules if m.startswith(API_ONLY))}
if "snapshot_restore_py" in sys.modules:
    import snapshot_restore_py as hooks
    snap_agent.http.request("GET", URL)  # a keep-alive connection, pooled before the snapshot
    hooks.run_before_snapshot()
    snapshot = random.getstate()
    chain = handler.adapters.clients.dynamodb.credentials
    draws = []
    for _ in range(2):  # two environments resumed from the one snapshot
        random.setstate(snapshot)
        pool = handler.adapters.clients.dynamodb.pool
        closed = []
        pool._idle.append(type("Connection", (), {"close": lambda self: closed.append(1)})())
        chain._botocore = object()  # credentials found before the snapshot
        hooks.run_after_restore()
        draws.append(random.random())
    seen["after_restore"] = {
        "idle_connections": len(pool._idle),
        "closed": len(closed),
        "credentials_dropped": chain._botocore is None,
        "framework_pools": len(snap_agent.http.pools),
    }
    random.setstate(snapshot)
    seen["draws"] = draws + [random.random()]
    snap_agent.http.request("GET", URL)  # on a new connection
print(json.dumps(seen))
"""


# Container credentials, as Lambda may hand a SnapStart function its role's instead of keys in
# the environment: every GET answers the next set of keys.
CREDENTIALS_CHILD = """
import json, sys
import a2a_core.functions.worker.handler as handler
import snapshot_restore_py as hooks
chain = handler.adapters.clients.dynamodb.credentials
hooks.run_before_snapshot()
seen = {"chain_imported": "botocore.credentials" in sys.modules, "before": chain().access_key}
hooks.run_after_restore()
seen["after"] = chain().access_key
seen["again"] = chain().access_key
print(json.dumps(seen))
"""


class _Credentials(http.server.BaseHTTPRequestHandler):
    served: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.served.append(self.headers.get("Authorization", ""))
        body = json.dumps(
            {
                "AccessKeyId": f"AKID{len(self.served)}",
                "SecretAccessKey": "secret",
                "Token": "token",
                "Expiration": "2099-01-01T00:00:00Z",
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


class _Counting(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a client may reuse the connection
    connections: ClassVar[list[object]] = []

    def setup(self) -> None:
        super().setup()
        self.connections.append(self.connection)

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def server() -> Iterator[tuple[str, list[object]]]:
    connections: list[object] = []
    handler = type("Handler", (_Counting,), {"connections": connections})
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", connections
        httpd.shutdown()


def cold_start(
    tmp_path: Path, url: str = "http://127.0.0.1:9/", child: str = "", **env: str
) -> dict[str, Any]:
    (tmp_path / "snap_agent.py").write_text(AGENT)
    paths = [str(RUNTIME), str(tmp_path), str(ROOT / "src")]
    code = child or f"API_ONLY = {API_ONLY!r}\nURL = {url!r}\n{CHILD}"
    environment = {**os.environ, **DEPLOYED, "PYTHONPATH": os.pathsep.join(paths), **env}
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code],
        env={name: value for name, value in environment.items() if value},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return seen


@pytest.fixture(autouse=True)
def _no_lambda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_LAMBDA_INITIALIZATION_TYPE", raising=False)


def test_the_worker_imports_nothing_of_the_api(tmp_path: Path) -> None:
    assert cold_start(tmp_path)["api_modules"] == []


def test_the_recorded_worker_closures_hold_nothing_of_the_api() -> None:
    """What the worker's bundle ships (`python -m function_trace --write` records it)."""
    workers = [item for item in closures.load() if item.function == "worker"]
    assert workers
    for item in workers:
        assert [m for m in item.modules if m.startswith(API_ONLY)] == [], item.settings
        assert "a2a_core.compose.worker" in item.modules


def test_after_a_restore_no_connection_credentials_or_random_state_of_the_snapshot_is_used(
    tmp_path: Path, server: tuple[str, list[object]]
) -> None:
    url, connections = server
    seen = cold_start(tmp_path, url, AWS_LAMBDA_INITIALIZATION_TYPE="snap-start")
    assert seen["api_modules"] == []
    # The kit's pooled connection closed, the credentials found anew, the framework's pool empty.
    assert seen["after_restore"] == {
        "idle_connections": 0,
        "closed": 1,
        "credentials_dropped": True,
        "framework_pools": 0,
    }
    # The framework's next request opened a connection of its own.
    assert len(connections) == 2
    first, second, without_hooks = seen["draws"]
    assert first != second  # each restored environment draws its own numbers
    assert without_hooks not in (first, second)


def test_after_a_restore_the_credentials_are_read_anew(tmp_path: Path) -> None:
    served: list[str] = []
    handler = type("Handler", (_Credentials,), {"served": served})
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        seen = cold_start(
            tmp_path,
            child=CREDENTIALS_CHILD,
            AWS_LAMBDA_INITIALIZATION_TYPE="snap-start",
            AWS_ACCESS_KEY_ID="",  # none in the environment: the container's, from the endpoint
            AWS_SECRET_ACCESS_KEY="",
            AWS_CONTAINER_CREDENTIALS_FULL_URI=f"http://127.0.0.1:{httpd.server_address[1]}/credentials",
            AWS_CONTAINER_AUTHORIZATION_TOKEN="lambda-token",
            AWS_CONFIG_FILE=os.devnull,
            AWS_SHARED_CREDENTIALS_FILE=os.devnull,
            AWS_EC2_METADATA_DISABLED="true",
        )
        httpd.shutdown()
    # Found once before the snapshot (the chain in it), once after the restore, then kept.
    assert seen == {"chain_imported": True, "before": "AKID1", "after": "AKID2", "again": "AKID2"}
    assert served == ["lambda-token", "lambda-token"]
