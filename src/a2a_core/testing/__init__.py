"""Test an agent through the real engine, worker and task log, in memory, from any async test:

    from a2a_core.testing import run_agent

    async def test_asks_then_answers():
        async with run_agent(agent) as a:
            task = await a.send("hello")
            assert task.state == "input-required"
            task = await a.reply(task, "short")
            assert task.text == "Here is the short version."

``run_agent()`` without an agent serves the one your project's ``[tool.a2a-serverless]`` table
names (`project_agent`), as ``a2a-serverless dev`` does. `AgentHarness` (what `run_agent`
returns) sends, replies, streams, subscribes, cancels, gets and lists; `TaskResult` and
`StreamedTurn` are what it hands back. Needs only the base install.
"""

from a2a_core.testing.harness import AgentHarness, project_agent, run_agent
from a2a_core.testing.results import Event, StreamedTurn, TaskResult, text_of

__all__ = ["AgentHarness", "Event", "StreamedTurn", "TaskResult", "project_agent", "run_agent", "text_of"]
