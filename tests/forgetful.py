"""An agent that keeps each context's conversation in a module-level dict: right while one process
serves every turn, wrong on Lambda, where the next task of a context usually runs in a process
that never saw the first (what ``--worker fresh`` and ``run_agent(fresh_worker=True)`` show)."""

from __future__ import annotations

import asyncio

from a2a_core import TaskContext

SAID: dict[str, list[str]] = {}  # context id -> what the user said, in this process only


async def agent(ctx: TaskContext) -> str:
    """Answer with everything said in the context so far, as this process remembers it."""
    said = SAID.setdefault(ctx.context_id, [])
    said.append(ctx.text or "")
    return "you said: " + " | ".join(said)


LAST: list[str] = []  # what the latest turn of this module's copy was sent


async def echo_later(ctx: TaskContext) -> str:
    """Note the message, wait a moment, answer with the latest message this module noted."""
    LAST.append(ctx.text or "")
    await asyncio.sleep(0.3)
    return LAST[-1]
