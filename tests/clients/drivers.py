"""Run a client driver as a subprocess and read its results.

Each driver (``tests/clients/<name>_driver.py`` or ``.mjs``) runs one scenario of one client
against a base URL and prints one JSON summary per line (shapes below). The Python clients live
in their own environments, ``.venv-clients/<env>/``, made by ``make setup`` from
``tests/clients/requirements/<env>.txt`` (two versions of a2a-sdk cannot share a venv); the JS
client runs under node from ``node_modules``.

Summaries (``kind``): ``task`` (id, contextId, state in 0.3 spelling, text of the status
message, history [{role, text}], artifacts [{artifactId, name, text}]); ``message`` (messageId,
role, text, taskId, contextId); ``status-update`` (taskId, contextId, state, text, final: None
where the protocol has none); ``artifact-update`` (taskId, artifactId, name, text, append,
lastChunk); ``card``; ``push-config`` (taskId, id, url, token); ``push-configs`` (configs);
``tasks`` (tasks, nextPageToken); ``deleted``; ``error`` (error: the client's class name, code,
message).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIDE_VENVS = ROOT / ".venv-clients"
TIMEOUT = 60.0  # seconds for one scenario: above our server's 25 s blocking timeout

Result = dict[str, Any]


@dataclass(frozen=True)
class Driver:
    """One client: its label (package and version) and the command that runs its driver."""

    label: str
    command: tuple[str, ...]

    def run(self, base_url: str, scenario: str, *, timeout: float = TIMEOUT, **args: Any) -> list[Result]:
        """The results of ``scenario`` (keyword arguments are its ARGS_JSON), in order; fails the
        test with the driver's output if it crashes, is unusable or runs over ``timeout``."""
        self._check_installed()
        argv = [*self.command, base_url, scenario, json.dumps(args)]
        # The side environments must not see the test venv's import path.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        try:
            # A fixed argv: an interpreter and a driver script of this repository.
            done = subprocess.run(  # noqa: S603
                argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env, check=False
            )
        except subprocess.TimeoutExpired as expired:
            pytest.fail(f"{self.label} {scenario} ran over {timeout:.0f} s; stderr:\n{_text(expired.stderr)}")
        if done.returncode != 0:
            pytest.fail(f"{self.label} {scenario} exited with {done.returncode}; stderr:\n{done.stderr}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def one(self, base_url: str, scenario: str, **args: Any) -> Result:
        """The single result of ``scenario``."""
        results = self.run(base_url, scenario, **args)
        assert len(results) == 1, results
        return results[0]

    def _check_installed(self) -> None:
        if not Path(self.command[0]).is_absolute():
            return  # node, from PATH
        if not Path(self.command[0]).exists():
            pytest.fail(
                f"{self.label} is not installed: `make setup` creates {Path(self.command[0]).parents[1]}"
            )


def _text(output: bytes | str | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


def _python(env: str, script: str) -> tuple[str, ...]:
    return (str(SIDE_VENVS / env / "bin" / "python"), str(HERE / script))


A2A_SDK_03 = Driver("a2a-sdk 0.3.26", _python("a2a-sdk-0.3", "a2a_sdk_03_driver.py"))  # 0.3
A2A_SDK_02 = Driver("a2a-sdk 0.2.16", _python("a2a-sdk-0.2", "a2a_sdk_02_driver.py"))  # 0.2.5
FASTA2A = Driver("fasta2a 2.1.1", _python("fasta2a", "fasta2a_driver.py"))  # 0.3 methods, 1.0 objects
A2A_JS = Driver("@a2a-js/sdk 1.3", ("node", str(HERE / "a2a_js_driver.mjs")))  # 1.0, 0.3 compat on
