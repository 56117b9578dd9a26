"""The agent: an async function the kit calls for each turn of a task.

``ctx`` is the task so far: ``ctx.text`` is what the user just said, ``ctx.history`` the task's
recent messages. Return text (or a dict, a Part, a list of Parts) to complete the task; on the way,
``await ctx.update(...)`` reports progress and ``await ctx.artifact(...)`` hands back a result.
To ask the user a question and go on with the answer, see ``a2a-serverless init --template
multiturn``. Put your model or framework call here (a pydantic-ai Agent plugs in with
``a2a_core.adapters.pydantic_ai.PydanticAIAgent``).
"""

from a2a_core import TaskContext


async def agent(ctx: TaskContext) -> str:
    await ctx.update("Reading your message...")  # progress: the task is working, with this message
    words = len((ctx.text or "").split())
    return f"You said {words} word(s): {ctx.text}"  # the task completes with this message
