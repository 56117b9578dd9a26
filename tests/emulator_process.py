"""The tests' shared emulator: moto's server in a child process, one per test process (per xdist
worker), its resources created per test (`tests/conftest.py`).

A child rather than a thread of the test process: coverage traces every line the test process
runs, and moto answering each AWS call is many more lines than ours making it (a DynamoDB-heavy
test ran four times slower traced). The child runs exactly what `a2a-serverless dev` runs in
its own process (`a2a_core.emulator.moto_server.start_moto`), so behaviour does not change.

Run as a script it is the child: it prints the endpoint, then serves until its stdin closes
(the parent stopping it, or dying).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from a2a_core.emulator.moto_server import REGION, EmulatedAws, connect, start_moto

STARTUP_TIMEOUT = 60.0


class EmulatorProcess:
    def __init__(self) -> None:
        # Untraced: what the child runs is moto's code, not ours.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_CORE_", "COVERAGE_"))}
        self.process = subprocess.Popen(  # noqa: S603
            [sys.executable, str(Path(__file__))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert self.process.stdout is not None
        self.endpoint = self.process.stdout.readline().strip()
        if not self.endpoint.startswith("http://"):
            self.stop()
            raise RuntimeError(f"the emulator process exited with {self.process.returncode} before serving")

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def start_emulator_process(region: str = REGION) -> EmulatedAws:
    process = EmulatorProcess()
    return connect(process.endpoint, region, process)


def _serve() -> None:
    server = start_moto()
    host, port = server.get_host_and_port()
    print(f"http://{host}:{port}", flush=True)
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    _serve()
