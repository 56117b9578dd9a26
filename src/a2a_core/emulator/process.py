"""The emulator in a process of its own: moto's server as a child of the process that uses it.

moto answering an AWS call is several times the work of making it (parsing the HTTP request,
running the service's model, rendering the answer), so a server that shares its process, and
Python's one running thread at a time, with the API, the worker and the pollers leaves them a
fraction of a core: dev served ~10 tasks a second on the emulator and got *slower* under load.
In a child it has a core of its own. Nothing else changes: the clients point at its endpoint
exactly as at a server in-process, and what dev journals it journals on its own clients, before
each call returns (`a2a_core.emulator.journal`).

The child serves until its standard input closes: when the parent stops it, and when the parent
dies however it dies (``kill -9`` included), so no emulator outlives its dev. It ignores SIGINT and
SIGTERM: Ctrl-C reaches the whole process group, and so does the SIGTERM of a process manager
(systemd, docker, a shell's ``kill -- -PGID``), and the parent, still shutting down, needs it
until then.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

from a2a_core.emulator.moto_server import REGION

if TYPE_CHECKING:
    from a2a_core.emulator.moto_server import EmulatedAws


class EmulatorProcess:
    """moto's server in a child process; `endpoint` once it serves."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "a2a_core.emulator.process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        self.endpoint = ""

    def wait_until_serving(self) -> str:
        """The endpoint, once the child serves; RuntimeError if it exited first."""
        assert self.process.stdout is not None
        self.endpoint = self.process.stdout.readline().strip()
        if not self.endpoint.startswith("http://"):
            self.stop()
            raise RuntimeError(
                f"the AWS emulator process exited with {self.process.returncode} before serving"
            )
        return self.endpoint

    def stop(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def start_emulator_process(prefix: str | None = None, region: str = REGION) -> EmulatedAws:
    """moto in a child process, with the service's resources created on it (`connect`)."""
    from a2a_core.emulator.moto_server import connect

    child = EmulatorProcess()
    return connect(child.wait_until_serving(), region, child, prefix)


def serve() -> None:
    """The child: serve on a free loopback port, print the endpoint, stop when stdin closes."""
    from a2a_core.emulator.moto_server import start_moto

    for ignored in (signal.SIGINT, signal.SIGTERM):
        signal.signal(ignored, signal.SIG_IGN)
    server = start_moto()
    host, port = server.get_host_and_port()
    print(f"http://{host}:{port}", flush=True)
    try:
        sys.stdin.read()
    finally:
        server.stop()
        os._exit(0)  # moto's threads hold nothing worth a slow interpreter teardown


if __name__ == "__main__":
    serve()
