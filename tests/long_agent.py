"""An agent whose turn takes ``work N`` seconds (one progress status and one artifact chunk a
second), for the long-turn tests: it says which process and attempt ran it, and writes to
``LONG_AGENT_LOG`` (a file) when it starts and when it is stopped."""

from __future__ import annotations

import asyncio
import json
import os
import time

from a2a_core import TaskContext


def _note(event: str, ctx: TaskContext) -> None:
    path = os.environ.get("LONG_AGENT_LOG")
    if path:
        attempt = ctx.lease.attempt if ctx.lease is not None else 0
        line = {
            "event": event,
            "task": ctx.task_id,
            "pid": os.getpid(),
            "attempt": attempt,
            "at": time.time(),
        }
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")


async def agent(ctx: TaskContext) -> str:
    """Work for the seconds the message names, reporting each one."""
    seconds = int((ctx.text or "work 1").split()[-1])
    attempt = ctx.lease.attempt if ctx.lease is not None else 0
    _note("started", ctx)
    artifact_id = None
    try:
        for step in range(1, seconds + 1):
            await ctx.update(f"step {step} of {seconds}")
            chunk = f"[attempt {attempt} step {step}]"
            artifact_id = await ctx.artifact(chunk, artifact_id=artifact_id, append=artifact_id is not None)
            await asyncio.sleep(1)
    except BaseException:  # cancelled by the worker, or its emit refused (the task was canceled)
        _note("stopped", ctx)
        raise
    return f"worked {seconds} s in attempt {attempt} (pid {os.getpid()})"
