"""Every benchmark script still runs, as a reader of bench/README.md runs it: its ``--help``, and a
``--smoke`` run (tiny counts through the same code, a2a-sdk 1.3 still measured where the benchmark
compares against it), so a benchmark that rots fails here rather than for the next person who
wants its numbers. A script is a ``bench/*.py`` with a main guard; every other bench module must be
imported by one, so nothing in bench/ escapes."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
MAIN_GUARD = 'if __name__ == "__main__":'
SCRIPTS = sorted(path for path in BENCH.glob("*.py") if MAIN_GUARD in path.read_text())
TIMEOUT = 300


def _run(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # A fixed argv of our own interpreter and the repository's scripts.
    return subprocess.run(  # noqa: S603
        [sys.executable, str(script), *args],
        cwd=BENCH.parent,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_the_script_says_how_to_run_it(script: Path) -> None:
    result = _run(script, "--help")
    assert result.returncode == 0, result.stderr
    assert "--smoke" in result.stdout


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_the_script_runs_in_smoke_mode(script: Path) -> None:
    result = _run(script, "--smoke")
    assert result.returncode == 0, (
        f"{script.name} --smoke failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    )
    assert result.stdout.strip(), f"{script.name} --smoke printed no report"


def _names_used(path: Path) -> set[str]:
    """Top-level modules ``path`` imports, and the strings it names (a module a child process
    imports, as the cold start benchmarks load the baseline handlers)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def test_every_bench_module_is_a_script_or_used_by_one() -> None:
    modules = {path.stem: path for path in BENCH.glob("*.py")}
    reached, todo = set(), [path.stem for path in SCRIPTS]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(_names_used(modules[name]) & modules.keys())
    assert SCRIPTS, "no benchmark script found"
    assert set(modules) - reached == set(), "bench modules no script uses (a script needs a main guard)"
