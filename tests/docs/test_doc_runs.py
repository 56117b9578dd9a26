"""The docs' example runner catches a broken example, and refuses a marker it cannot honour."""

from __future__ import annotations

from pathlib import Path

import pytest

from doc_blocks import Block, RunOptions, collect
from doc_runs import check, pointed_at, run, server_commands


def _outcome_problems(tmp_path: Path, language: str, code: str, **options: object) -> list[str]:
    block = Block(tmp_path / "page.md", 1, language, code, options=RunOptions(**options))  # type: ignore[arg-type]
    return check(block, run(block, code, tmp_path))


def test_a_python_example_that_raises_fails(tmp_path: Path) -> None:
    assert _outcome_problems(tmp_path, "python", "import a2a_core\na2a_core.nothing_here\n") == [
        "exited with 1"
    ]


def test_a_python_example_with_top_level_await_runs(tmp_path: Path) -> None:
    code = "import asyncio\nawait asyncio.sleep(0)\nprint('slept')\n"
    assert _outcome_problems(tmp_path, "python", code, expect=("slept",)) == []


def test_an_agent_whose_task_fails_fails_its_example(tmp_path: Path) -> None:
    code = "async def agent(ctx):\n    raise RuntimeError('broken agent')\n"
    assert _outcome_problems(tmp_path, "python", code) == ["exited with 1"]


def test_an_agent_example_is_served_each_turn_on_one_task(tmp_path: Path) -> None:
    code = (
        "async def agent(ctx):\n"
        "    if len(ctx.history) == 1:\n"
        "        await ctx.ask('again?')\n"
        "        return None\n"
        "    return f'second turn: {ctx.text}'\n"
    )
    assert _outcome_problems(tmp_path, "python", code, say=("a", "b"), expect=("second turn: b",)) == []
    assert _outcome_problems(tmp_path, "python", code, say=("a",)) == ["exited with 1"]  # input-required


def test_a_pytest_example_runs_its_tests_and_fails_with_them(tmp_path: Path) -> None:
    passing = "def test_one():\n    assert 1 + 1 == 2\n"
    assert _outcome_problems(tmp_path, "python", passing, pytest=True, expect=("1 passed",)) == []
    failing = "def test_one():\n    assert 1 + 1 == 3\n"
    assert _outcome_problems(tmp_path, "python", failing, pytest=True) == ["exited with 1"]


def test_a_shell_example_that_does_not_print_what_it_should_fails(tmp_path: Path) -> None:
    problems = _outcome_problems(tmp_path, "bash", "echo 'Echo: hell'\n", expect=("Echo: hello",))
    assert problems == ["did not print 'Echo: hello'"]
    problems = _outcome_problems(tmp_path, "bash", "echo one\n", expect=("one", "one"))
    assert problems == ["did not print 'one' 2 times"]


def test_a_failing_command_fails_the_shell_example(tmp_path: Path) -> None:
    assert _outcome_problems(tmp_path, "bash", "false\necho after\n") == ["exited with 1"]


def test_broken_json_fails(tmp_path: Path) -> None:
    assert _outcome_problems(tmp_path, "json", '{"id": 1,}\n')[0] == "exited with 1"


def test_examples_are_pointed_at_the_test_server() -> None:
    code = 'curl http://127.0.0.1:8000/ && curl http://localhost:8000/x; URL = "https://abc.example/prod/"'
    pointed = pointed_at(code, "http://127.0.0.1:4321/", ["https://abc.example/prod/"])
    assert (
        pointed
        == 'curl http://127.0.0.1:4321/ && curl http://127.0.0.1:4321/x; URL = "http://127.0.0.1:4321/"'
    )


def test_server_commands_get_a_free_port(tmp_path: Path) -> None:
    code = "a2a-serverless dev   # the echo agent\n\na2a-serverless dev --agent x:y --port 9000\n"
    commands = [command[-1] for command in server_commands(code, tmp_path)]
    assert commands == [
        f"cd {tmp_path} && exec a2a-serverless dev --port 0",
        f"cd {tmp_path} && exec a2a-serverless dev --agent x:y --port 0",
    ]


@pytest.mark.parametrize(
    ("marker", "problem"),
    [
        ("<!-- no-run -->", "<!-- no-run: ... --> needs a reason"),
        ("<!-- run: expects=x -->", "unknown run option 'expects=x'"),
        ("<!-- run: auth=jwt -->", "auth=jwt is not supported (auth=api_key is)"),
        ("<!-- run: servers -->", "`servers` is for bash blocks"),
    ],
)
def test_a_marker_the_runner_cannot_honour_is_a_problem(tmp_path: Path, marker: str, problem: str) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"# Page\n\n{marker}\n```python\nprint(1)\n```\n", encoding="utf-8")
    blocks, problems = collect(page)
    assert len(blocks) == 1
    assert len(problems) == 1
    assert problems[0].startswith(f"{page}:4: {problem}")


def test_pytest_is_for_python_blocks(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- run: pytest -->\n```bash\npytest\n```\n", encoding="utf-8")
    _, problems = collect(page)
    assert problems == [f"{page}:2: `pytest` is for python blocks"]


def test_a_marker_away_from_its_block_is_a_problem(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- no-run: AWS -->\n\n```bash\naws s3 ls\n```\n", encoding="utf-8")
    blocks, problems = collect(page)
    assert problems == [f"{page}:1: a run marker must be the line right above a code block"]
    assert blocks[0].runs  # so it would run, and fail without AWS


def test_blocks_in_other_languages_are_shown_only(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```mermaid\nflowchart LR\n```\n\n```\nplain\n```\n\n- item\n\n  ```json\n  {}\n  ```\n")
    blocks, problems = collect(page)
    assert problems == []
    assert [(block.language, block.runs, block.code) for block in blocks] == [
        ("mermaid", False, "flowchart LR\n"),
        ("", False, "plain\n"),
        ("json", True, "{}\n"),
    ]
