"""What every command line has: ``--version``, ``cancel``, and one clear line (no traceback) when
the port is taken, an extra is not installed, or AWS credentials are missing."""

from __future__ import annotations

import importlib.metadata
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from dev_server import STARTUP_TIMEOUT, DevServer
from e2e.test_cli import Run, cli

pytestmark = pytest.mark.e2e

# Runs the CLI with some modules made unimportable, as in an environment without them.
BLOCKED_RUN = """
import sys
from importlib.abc import MetaPathFinder

class Missing(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == blocked or name.startswith(blocked + ".") for blocked in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

BLOCKED = set(sys.argv[1].split(","))
sys.meta_path.insert(0, Missing())
from a2a_core.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def run_python(*args: str, env: dict[str, str] | None = None) -> Run:
    # Our own interpreter running a fixed script with test-chosen arguments.
    done = subprocess.run(  # noqa: S603
        [sys.executable, *args], capture_output=True, text=True, timeout=60, check=False, env=env
    )
    return Run(done.returncode, done.stdout, done.stderr)


def one_line(run: Run) -> str:
    assert run.code == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    return run.stderr.strip()


@pytest.fixture(scope="module")
def multiturn_url() -> Iterator[str]:
    server = DevServer("a2a_core.examples.multiturn:agent", "memory")
    try:
        yield server.wait_ready(STARTUP_TIMEOUT)
    finally:
        server.stop()


def test_version() -> None:
    run = cli("--version")
    assert run.code == 0
    assert run.stdout == f"a2a-serverless {importlib.metadata.version('a2a-serverless')}\n"


def test_cancel_a_task_waiting_for_input_then_again(multiturn_url: str) -> None:
    first = cli("send", multiturn_url, "otters", "--json", "--no-interactive", "--no-stream")
    [task] = first.documents
    assert task["status"]["state"] == "input-required"

    canceled = cli("cancel", multiturn_url, task["id"], "--json")
    assert canceled.code == 0, canceled.stderr
    assert canceled.documents[0]["status"]["state"] == "canceled"
    assert cli("get", multiturn_url, task["id"], "--json").documents[0]["status"]["state"] == "canceled"

    human = cli("cancel", multiturn_url, task["id"])
    assert human.code == 2
    assert "the agent answered error -32002" in human.stderr
    assert "canceled and cannot be canceled" in human.stderr


def test_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = cli("dev", "--backend", "memory", "--port", str(port))
    assert one_line(run) == (
        f"a2a-serverless dev: port {port} on 127.0.0.1 is already in use (another a2a-serverless dev?): "
        "stop that process, or choose another port with --port N (--port 0 picks a free one)"
    )


@pytest.mark.parametrize(
    ("blocked", "args", "missing"),
    [
        ("uvicorn", ["dev", "--backend", "memory", "--port", "0"], "uvicorn"),
        ("moto", ["dev", "--backend", "local", "--fresh", "--port", "0"], "moto"),
    ],
)
def test_a_missing_extra_names_the_install_command(blocked: str, args: list[str], missing: str) -> None:
    run = run_python("-c", BLOCKED_RUN, blocked, *args)
    assert one_line(run) == (
        f"a2a-serverless dev: needs {missing}, which is not installed: pip install 'a2a-serverless[local]'"
    )


def test_a_missing_module_that_no_extra_brings_keeps_its_traceback() -> None:
    """A broken install or a bug is not hidden behind advice to install an extra."""
    run = run_python("-c", BLOCKED_RUN, "a2a_core.dev.guard", "dev", "--backend", "memory", "--port", "0")
    assert run.code == 1
    assert "Traceback" in run.stderr


def without_aws_credentials(**extra: str) -> dict[str, str]:
    """This environment with no way for botocore to find credentials."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return env | {
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_EC2_METADATA_DISABLED": "true",
        **extra,
    }


AWS_SETTINGS = {
    "A2A_TABLE_NAME": "tasks",
    "A2A_BUCKET_NAME": "bodies",
    "A2A_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/runs",
}
CREDENTIALS_HELP = (
    "set AWS_PROFILE to a profile of ~/.aws/config (after `aws configure` or `aws sso login`), or "
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)"
)


def test_missing_aws_credentials_are_one_line_before_serving() -> None:
    env = without_aws_credentials(**AWS_SETTINGS)
    dev = run_python("-m", "a2a_core.cli", "dev", "--backend", "aws", "--port", "0", env=env)
    assert (
        one_line(dev)
        == f"a2a-serverless dev: no AWS credentials (Unable to locate credentials): {CREDENTIALS_HELP}"
    )
    keys = run_python("-m", "a2a_core.cli", "keys", "--table", "tasks", "list", env=env)
    assert one_line(keys).startswith("a2a-serverless keys: no AWS credentials (Unable to locate credentials)")


def test_a_profile_that_does_not_exist_is_named() -> None:
    env = without_aws_credentials(AWS_PROFILE="nowhere", **AWS_SETTINGS)
    run = run_python("-m", "a2a_core.cli", "dev", "--backend", "aws", "--port", "0", env=env)
    assert "The config profile (nowhere) could not be found" in one_line(run)


def test_credentials_in_the_environment_are_enough_to_start() -> None:
    """The check reads credentials only; it does not refuse an environment that has them."""
    env = without_aws_credentials(
        AWS_ACCESS_KEY_ID="AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY="secret", **AWS_SETTINGS
    )
    server = DevServer("a2a_core.examples.echo:agent", "aws", env)
    try:
        url = server.wait_ready(STARTUP_TIMEOUT)
        assert json.loads(cli("card", url, "--json").stdout)["name"]
    finally:
        server.stop()
