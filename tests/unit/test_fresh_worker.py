"""`run_agent(fresh_worker=True)` (`a2a_core.adapters.fresh`): every turn on an agent imported anew,
so what an agent keeps in process memory between turns is lost as on Lambda, while what it keeps
in the task or the context store carries on."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

import forgetful
from a2a_core import TaskContext
from a2a_core.adapters.fresh import FreshAgent
from a2a_core.discovery import find_agent
from a2a_core.examples.multiturn import DraftWriter
from a2a_core.testing import run_agent

pytestmark = pytest.mark.anyio


async def test_a_warm_worker_remembers_what_the_module_kept() -> None:
    async with run_agent(forgetful.agent) as a:
        first = await a.send("apples")
        second = await a.send("pears", context_id=first.context_id)
    assert second.text == "you said: apples | pears"


async def test_a_fresh_worker_forgets_what_the_module_kept() -> None:
    async with run_agent(forgetful.agent, fresh_worker=True) as a:
        first = await a.send("apples")
        second = await a.send("pears", context_id=first.context_id)
    assert first.text == "you said: apples"
    assert second.text == "you said: pears"  # turn 2 ran on a module imported anew
    # The fresh copies were the turns' own: the test's module is left as it was.
    assert sys.modules["forgetful"] is forgetful
    assert first.context_id not in forgetful.SAID


async def test_turns_running_at_once_on_fresh_workers_share_no_module() -> None:
    async with run_agent(forgetful.echo_later, fresh_worker=True) as a:
        first, second = await asyncio.gather(a.send("first"), a.send("second"))
    # Warm, both turns would note into one list and the first would answer "second".
    assert (first.text, second.text) == ("first", "second")


async def test_the_kits_multiturn_example_continues_on_a_fresh_worker() -> None:
    async with run_agent(DraftWriter, fresh_worker=True) as a:
        asked = await a.send("otters")
        assert asked.state == "input-required"
        done = await a.reply(asked, "children")
    assert done.state == "completed"
    assert done.text == "Done: the draft is tailored for children."
    assert done.artifact("final") == "Final version, written for children."


async def test_context_storage_carries_across_fresh_workers() -> None:
    async with run_agent("context_counter:agent", fresh_worker=True) as a:
        first = await a.send("one")
        second = await a.send("two", context_id=first.context_id)
    assert (first.text, second.text) == ("turn 1 of the context", "turn 2 of the context")


async def test_an_agent_without_a_top_level_name_is_refused() -> None:
    async def inline(ctx: TaskContext) -> str:
        return "hi"

    for agent in (inline, lambda: forgetful.agent, DraftWriter()):
        with pytest.raises(TypeError, match="cannot be imported anew for each turn"):
            run_agent(agent, fresh_worker=True)


def test_a_wrong_reference_fails_when_the_worker_is_made() -> None:
    with pytest.raises(Exception, match="has no attribute 'missing'"):
        FreshAgent(find_agent("forgetful:missing"))


async def test_each_turn_runs_the_users_module_as_its_file_is_now(tmp_path: Path) -> None:
    module = tmp_path / "edited_agent.py"
    module.write_text("async def agent(ctx):\n    return 'first'\n")
    sys.path.insert(0, str(tmp_path))
    try:
        async with run_agent("edited_agent:agent", fresh_worker=True) as a:
            first = await a.send("hi")
            module.write_text("async def agent(ctx):\n    return 'second, edited'\n")
            second = await a.send("hi")
        assert (first.text, second.text) == ("first", "second, edited")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("edited_agent", None)
