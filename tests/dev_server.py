"""Servers in a subprocess for the end-to-end tests (fixtures in e2e/conftest.py): `a2a-serverless
dev` (`DevServer`), or any server that prints the same banner (`ServerProcess`; a2a-sdk 1.3's
reference server for the client matrix).

Its combined stdout/stderr is drained by a thread, so the pipe never fills however much the
server logs, and the captured lines are shown when the server fails to come up.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NoReturn

import httpx
import pytest

STARTUP_TIMEOUT = 20.0
STOP_TIMEOUT = 5.0
TESTS_DIR = Path(__file__).resolve().parent

_URL_LINE = re.compile(r"^A2A agent listening on (?P<url>http://\S+)\s*$")


# The installed console script, as a developer runs it (`make dev`).
CONSOLE_SCRIPT = str(Path(sys.executable).with_name("a2a-serverless"))


class ServerProcess:
    """One server process and the lines it has printed so far; ``cleanup`` (a directory) is
    removed when it stops."""

    def __init__(
        self,
        label: str,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        cleanup: str | None = None,
    ) -> None:
        self.label = label
        self.base_url: str | None = None
        self._lines: collections.deque[str] = collections.deque(maxlen=2000)
        self._lock = threading.Lock()
        self._url_or_eof = threading.Event()
        self._cleanup = cleanup
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        # A fixed argv of our own interpreter and modules: no untrusted input reaches it.
        self.process = subprocess.Popen(  # noqa: S603
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env=env,
        )
        self._reader = threading.Thread(target=self._drain, name=f"drain {label}", daemon=True)
        self._reader.start()

    @property
    def output(self) -> str:
        with self._lock:
            return "".join(self._lines)

    def _drain(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        for line in stream:
            with self._lock:
                self._lines.append(line)
            match = _URL_LINE.match(line)
            if match and self.base_url is None:
                self.base_url = match.group("url")
                self._url_or_eof.set()
        self._url_or_eof.set()  # EOF: the process exited (or closed its stdout)

    def wait_ready(self, timeout: float) -> str:
        """The base URL once the server prints it and answers /healthz; fails the test otherwise."""
        deadline = time.monotonic() + timeout
        self._url_or_eof.wait(timeout)
        url = self.base_url
        if url is None:
            if self._url_or_eof.is_set():  # its output ended: the process is exiting
                with contextlib.suppress(subprocess.TimeoutExpired):
                    code = self.process.wait(STOP_TIMEOUT)
                    self.fail(f"exited with code {code} before printing its URL")
            self.fail(f"did not print its URL within {timeout:.0f} s")
        # The banner is printed once the socket is bound, which may be just before uvicorn
        # starts listening on it: poll until the server really answers.
        last_error = "no attempt"
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    self.fail(f"exited with code {self.process.returncode}")
                try:
                    response = client.get(f"{url}healthz")
                except httpx.TransportError as error:
                    last_error = repr(error)
                else:
                    if response.status_code == 200 and response.json() == {"status": "ok"}:
                        return url
                    last_error = f"HTTP {response.status_code}: {response.text}"
                time.sleep(0.05)
        self.fail(f"printed {url} but /healthz did not answer within {timeout:.0f} s ({last_error})")

    def fail(self, reason: str) -> NoReturn:
        self.stop()
        pytest.fail(f"{self.label} {reason}; its output:\n{self.output}", pytrace=False)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_TIMEOUT)
        self._reader.join(STOP_TIMEOUT)
        if self.process.stdout is not None:
            self.process.stdout.close()
        if self._cleanup is not None:
            shutil.rmtree(self._cleanup, ignore_errors=True)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a laptop's process is killed or crashes."""
        self.process.kill()
        self.process.wait(STOP_TIMEOUT)
        self._reader.join(STOP_TIMEOUT)
        if self.process.stdout is not None:
            self.process.stdout.close()


class DevServer(ServerProcess):
    """`a2a-serverless dev` (``console_script``: the installed script, as a developer runs it).

    A local-backend server keeps its state in a directory of its own (``--state-dir``), made for
    it unless ``args`` name one (or ``--fresh``), and removed when it stops.
    """

    def __init__(
        self,
        agent: str,
        backend: str,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
        *,
        console_script: bool = False,
        python: str = sys.executable,
    ) -> None:
        """``python``: the interpreter of the environment to serve from (another venv's)."""
        self.agent = agent
        self.backend = backend
        state_dir = None
        if backend == "local" and not {"--state-dir", "--fresh"} & set(args):
            state_dir = tempfile.mkdtemp(prefix="a2a-dev-state-")
            args = [*args, "--state-dir", state_dir]
        program = [CONSOLE_SCRIPT] if console_script else [python, "-m", "a2a_core.cli"]
        command = [*program, *("dev", "--port", "0", "--agent", agent, "--backend", backend), *args]
        super().__init__(f"dev server ({backend}) for {agent}", command, env, cleanup=state_dir)


def with_tests_on_path(**env: str) -> dict[str, str]:
    """The server's extra environment: ``env`` plus tests/ on PYTHONPATH (for `SLOW_AGENT`)."""
    path = os.pathsep.join(p for p in (str(TESTS_DIR), os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path, **env}
