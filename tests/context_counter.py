"""An agent that counts a context's tasks in the context store: state that outlives the worker."""

from __future__ import annotations

from a2a_core import TaskContext


async def agent(ctx: TaskContext) -> str:
    """Say how many tasks of this context the store has seen, this one included."""
    stored = await ctx.change_context(lambda value: (value if isinstance(value, int) else 0) + 1)
    return f"turn {stored} of the context"
