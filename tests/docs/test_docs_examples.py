"""Every runnable code block of README.md and docs/ runs as printed (the convention:
docs/contributing.md, "Code blocks in the docs")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dev_server import STARTUP_TIMEOUT, ServerProcess
from doc_blocks import Block, collect_all
from doc_runs import DocServers, block_env, check, needs_server, pointed_at, run, server_commands
from support import missing_prerequisite

BLOCKS, PROBLEMS = collect_all()


def test_every_marker_is_well_formed() -> None:
    assert PROBLEMS == []


def test_the_docs_have_examples_that_run_and_examples_that_say_why_not() -> None:
    runnable = [block for block in BLOCKS if block.runs]
    skipped = [block for block in BLOCKS if block.skip_reason]
    assert {block.language for block in runnable} == {"python", "bash", "js", "json"}
    assert len(runnable) > len(skipped) > 0


@pytest.mark.e2e
@pytest.mark.parametrize("block", [block for block in BLOCKS if block.runs], ids=lambda block: block.id)
def test_example_runs(block: Block, doc_servers: DocServers, tmp_path: Path) -> None:
    for name, needed in (("curl", "curl " in block.code), ("node", block.language == "js")):
        if needed and shutil.which(name) is None:
            missing_prerequisite(f"{name} is not installed ({block.id} needs it)")
    if block.options.servers:
        _start_each_server(block, tmp_path)
        return
    code = block.code
    if needs_server(block):
        code = pointed_at(code, doc_servers.url(block.options), block.options.urls)
    outcome = run(block, code, tmp_path)
    problems = check(block, outcome)
    assert not problems, f"{block.id} {', '.join(problems)}; it printed:\n{outcome.output}"


def _start_each_server(block: Block, workdir: Path) -> None:
    for command in server_commands(block.code, workdir):
        server = ServerProcess(f"{block.id}: {command[-1]}", command, block_env(block.options))
        try:
            server.wait_ready(STARTUP_TIMEOUT)
        finally:
            server.stop()
