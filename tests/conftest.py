from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.emulator.moto_server import EmulatedAws, create_resources
from emulator_process import start_emulator_process

# The pinned Node (package.json's `node`, an LTS release) runs the CDK CLI, jsii and the JavaScript
# clients in every test, as `make` runs them, whatever node this machine has on PATH.
PINNED_NODE = Path(__file__).resolve().parents[1] / "node_modules" / ".bin"
if (PINNED_NODE / "node").exists() and not os.environ["PATH"].startswith(str(PINNED_NODE)):
    os.environ["PATH"] = f"{PINNED_NODE}{os.pathsep}{os.environ['PATH']}"

# The Lambda handlers under test build their clients from the usual credential chain, as in AWS;
# moto accepts any credentials. (`a2a-serverless dev` gives its emulator clients their own.)
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def local_aws() -> Iterator[EmulatedAws]:
    """moto's real server on a loopback port, in a child process shared by this test process's
    session (resources are per test)."""
    aws = start_emulator_process()
    yield aws
    aws.stop()


@pytest.fixture
def aws_resources(local_aws: EmulatedAws) -> ResourceNames:
    """A fresh table, queue pair and bucket on the emulator for one test."""
    return create_resources(local_aws.clients, prefix=None, region=local_aws.region)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """With every core (``make test``: pytest-xdist's ``--dist loadgroup``), a test that uses a
    module-scoped fixture (an e2e module's servers) runs on the worker that runs the rest of its
    module, so the fixture is built once; every other test goes to whichever worker is free."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        definitions = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope == "module" for defs in definitions for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
