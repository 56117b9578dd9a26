"""The smallest agent: reply with what the user said."""

from __future__ import annotations

from a2a_core import TaskContext


async def agent(ctx: TaskContext) -> str:
    return f"Echo: {ctx.text}"
