"""Run the documentation's code blocks (`doc_blocks`) as docs/contributing.md says: each block in
a fresh process, in an empty directory, against an `a2a-serverless dev` server when it names
one. `check` returns what went wrong, so a broken example fails its test with the reason.

Run as a module (``python -m doc_runs FILE [--say TEXT ...]``) it is the interpreter for one
Python block: top-level ``await`` allowed, and a module-level ``agent`` served a conversation.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dev_server import STARTUP_TIMEOUT, DevServer
from doc_blocks import ROOT, Block, RunOptions

TESTS_DIR = Path(__file__).resolve().parent
TIMEOUT = 120.0
API_KEY = "docs-key-0123456789abcdef"
ECHO_AGENT = "a2a_core.examples.echo:agent"
EXTENDED_SKILL = {"id": "docs-extended", "name": "Extended", "description": "For key holders", "tags": []}
LOCAL_URL = re.compile(r"http://(?:127\.0\.0\.1|localhost):8000")
_PORT = re.compile(r"--port[ =]\d+")


@dataclass(frozen=True)
class Outcome:
    returncode: int
    output: str  # stdout and stderr together


class DocServers:
    """The dev servers the examples run against: one per combination of options (agent, auth,
    extended card), started when a block first needs it, on a free port, memory backend."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, str | None, bool], tuple[DevServer, str]] = {}

    def url(self, options: RunOptions) -> str:
        key = (options.agent or ECHO_AGENT, options.auth, options.extended)
        if key not in self._running:
            server = DevServer(key[0], "memory", server_env(options), console_script=True)
            self._running[key] = (server, server.wait_ready(STARTUP_TIMEOUT))
        return self._running[key][1]

    def stop(self) -> None:
        for server, _ in self._running.values():
            server.stop()


def needs_server(block: Block) -> bool:
    options = block.options
    if options.servers:
        return False
    chosen = options.urls or options.auth or options.agent or options.extended
    return bool(chosen or LOCAL_URL.search(block.code))


def server_env(options: RunOptions) -> dict[str, str]:
    """The dev server's environment for a block's options."""
    env: dict[str, str] = {}
    if options.auth == "api_key":
        env |= {"A2A_AUTH_MODE": "api_key", "A2A_API_KEYS": json.dumps({"docs": API_KEY})}
    if options.extended:
        env["A2A_EXTENDED_SKILLS"] = json.dumps([EXTENDED_SKILL])
    return env


def pointed_at(code: str, base_url: str, urls: Sequence[str]) -> str:
    """``code`` with the documentation's URLs (127.0.0.1:8000, and ``urls``) replaced by the
    server's ``base_url`` (``http://127.0.0.1:PORT/``)."""
    for url in urls:
        code = code.replace(url, base_url)
    return LOCAL_URL.sub(base_url.rstrip("/"), code)


def block_env(options: RunOptions) -> dict[str, str]:
    """What every block runs with: the kit's console script first on PATH, tests/ importable."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    python_path = os.pathsep.join(p for p in (str(TESTS_DIR), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PATH": path, "PYTHONPATH": python_path, "PYTHONUNBUFFERED": "1"}
    if options.auth == "api_key":
        env["A2A_API_KEY"] = API_KEY
    return env


def run(block: Block, code: str, workdir: Path) -> Outcome:
    """Run ``code`` (the block, pointed at its server) in ``workdir``."""
    env = block_env(block.options)
    if block.language == "json":
        try:
            json.loads(code)
        except ValueError as error:
            return Outcome(1, f"not JSON: {error}")
        return Outcome(0, "")
    if block.language == "python" and block.options.pytest:
        (workdir / "test_example.py").write_text(code, encoding="utf-8")
        # As a user's project runs it: no configuration, warnings as errors as in this repository.
        return _process(
            [sys.executable, "-m", "pytest", "-q", "-W", "error", "-p", "no:cacheprovider"], workdir, env
        )
    if block.language == "python":
        script = workdir / "example.py"
        script.write_text(code, encoding="utf-8")
        says = [arg for text in block.options.say for arg in ("--say", text)]
        return _process([sys.executable, "-m", "doc_runs", str(script), *says], workdir, env)
    if block.language == "js":
        script = workdir / "example.mjs"
        script.write_text(code, encoding="utf-8")
        (workdir / "node_modules").symlink_to(ROOT / "node_modules")
        return _process(["node", str(script)], workdir, env)
    return _process(["bash", "-euo", "pipefail", "-c", code], workdir, env)


def check(block: Block, outcome: Outcome) -> list[str]:
    """What is wrong with a block's run: its exit code, or expected text it did not print (as
    many times as ``expect=`` names it)."""
    problems = [f"exited with {outcome.returncode}"] if outcome.returncode else []
    for text in dict.fromkeys(block.options.expect):
        times = block.options.expect.count(text)
        if outcome.output.count(text) < times:
            problems.append(f"did not print {text!r}" + (f" {times} times" if times > 1 else ""))
    return problems


def server_commands(code: str, workdir: Path) -> Iterator[list[str]]:
    """Each command line of a ``servers`` block, on a free port, started in ``workdir``."""
    for line in code.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        command = shlex.join(words)
        command = _PORT.sub("--port 0", command) if _PORT.search(command) else f"{command} --port 0"
        yield ["bash", "-c", f"cd {shlex.quote(str(workdir))} && exec {command}"]


def _process(command: list[str], workdir: Path, env: Mapping[str, str]) -> Outcome:
    try:
        # The documentation's own examples, run as the page shows them.
        done = subprocess.run(  # noqa: S603
            command,
            cwd=workdir,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        return Outcome(1, f"timed out after {TIMEOUT:.0f} s; output so far: {error.output!r}")
    return Outcome(done.returncode, done.stdout + done.stderr)


# The interpreter for one Python block (``python -m doc_runs FILE``).


def execute(source: str, filename: str) -> dict[str, Any]:
    """Run ``source`` as ``python -m asyncio`` would: top-level ``await`` is allowed."""
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": filename}
    code = compile(source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, namespace)  # noqa: S307 - the documentation's own example
    if inspect.iscoroutine(result):
        asyncio.run(result)
    return namespace


async def converse(agent: Any, turns: Sequence[str]) -> str:
    """Serve ``agent`` one task through the real engine and worker in memory (`a2a_core.testing`),
    one turn per text; returns the task's final state and status message."""
    from a2a_core.testing import TaskResult, run_agent

    task: TaskResult | None = None
    async with run_agent(agent) as harness:
        for text in turns:
            task = await (harness.send(text) if task is None else harness.reply(task, text))
    assert task is not None
    if task.state != "completed":
        raise SystemExit(f"the agent's task ended {task.state.value}, not completed: {task.text}")
    return f"{task.state.value}: {task.text}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="doc_runs")
    parser.add_argument("file", type=Path)
    parser.add_argument("--say", action="append", default=[])
    args = parser.parse_args(argv)
    namespace = execute(args.file.read_text(encoding="utf-8"), str(args.file))
    if "agent" in namespace:
        print(asyncio.run(converse(namespace["agent"], args.say or ["hello"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
