"""The tests' shared emulator: moto's server in a child process, one per test process (per xdist
worker), its resources created per test (`tests/conftest.py`).

A child rather than a thread of the test process: coverage traces every line the test process
runs, and moto answering each AWS call is many more lines than ours making it (a DynamoDB-heavy
test ran four times slower traced). The child is the one `a2a-serverless dev` runs
(`a2a_core.emulator.process`), left untraced, so behaviour does not change.
"""

from __future__ import annotations

import os

from a2a_core.emulator.moto_server import REGION, EmulatedAws, connect
from a2a_core.emulator.process import EmulatorProcess


def start_emulator_process(region: str = REGION) -> EmulatedAws:
    # Untraced: what the child runs is moto's code, not ours.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_CORE_", "COVERAGE_"))}
    child = EmulatorProcess(env)
    return connect(child.wait_until_serving(), region, child)
