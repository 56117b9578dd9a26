"""The agent: a Strands `Agent` whose tool asks before it acts, served through Strands' own A2A
executor (`StrandsA2AExecutor`, as the kit's `DurableStrandsA2AExecutor`: the same executor,
building each turn's agent anew from its stored session).

``[tool.a2a-serverless] agent`` names `agent`, a function that builds the executor: the kit
calls it once per process (in ``a2a-serverless dev``, in the worker Lambda). The ``count_words``
tool interrupts the agent to ask for approval: the task waits (``input-required``, the question
and the interrupt's id in its status message), and a reply carrying
``{"interruptResponse": {"interruptId": ..., "response": "yes"}}`` as a data part resumes it.

The model is ``MODEL`` (Amazon Bedrock: app.py grants the worker alone ``bedrock_models=[MODEL]``) or any
Strands model object; the tests script one (tests/scripted.py), so they run offline. Each
context's agent (its conversation and a pending interrupt) is a Strands session kept in the
kit's own storage (DynamoDB when deployed, the emulator in ``dev``, memory in the tests), each
caller's apart, and built anew for every turn: a reply or a later task of the context continues
it whichever worker runs it.
"""

from typing import Any

from strands import Agent, tool
from strands.models import Model
from strands.session.session_manager import SessionManager
from strands.types.tools import ToolContext

from a2a_core.adapters.strands import DurableStrandsA2AExecutor, session_manager

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"


@tool(context=True)
def count_words(text: str, tool_context: ToolContext) -> dict[str, Any]:
    """Count the words of a text, once the user approves.

    Args:
        text: the text to count the words of.
    """
    answer = tool_context.interrupt("approval", reason=f"May I count the words of {text!r}?")
    if str(answer).strip().lower() not in {"yes", "y", "ok"}:
        return {"status": "error", "content": [{"text": "The user did not approve."}]}
    return {"status": "success", "content": [{"json": {"words": len(text.split())}}]}


def build_agent(model: str | Model = MODEL, sessions: SessionManager | None = None) -> Agent:
    return Agent(
        model=model,
        system_prompt="Count the words of what the user asks about with the count_words tool.",
        tools=[count_words],
        callback_handler=None,  # nothing printed: the executor reports the agent's output
        session_manager=sessions,
    )


def agent(model: str | Model = MODEL) -> DurableStrandsA2AExecutor:
    return DurableStrandsA2AExecutor(
        agent_factory=lambda context_id: build_agent(model, session_manager(context_id)),
        enable_a2a_compliant_streaming=True,
    )
