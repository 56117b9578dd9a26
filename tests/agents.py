"""Agents for the streaming tests; dev servers load them as ``agents:<name>`` (tests/ on PYTHONPATH).

`slow` takes its pacing from the user's text, so one server covers every test: ``key=value``
words set ``chunks`` (artifact chunks to emit, default 5), ``delay`` (seconds after each chunk,
default 0.02) and ``pause`` (seconds of silence before the first chunk, default 0). Each chunk's
text is ``"<the user's text> #<index>"``, so a client can tell whose events it received, and the
turn completes with ``"done: <the user's text>"``.

`scripted` is `slow` plus a question: a text with the word ``wait`` leaves the task
input-required (asking `WAIT_QUESTION`), and the reply completes it with ``"done: <reply>"``. The
client matrix (tests/clients/) runs it on our server, and a2a-sdk's reference server
(`clients.reference_server`) implements the same contract, so one test fits either server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import JsonValue

from a2a_core.core.turn.executor import TaskContext

ARTIFACT = "chunks"
WAIT_QUESTION = "What next?"


def options(text: str) -> dict[str, str]:
    pairs = (word.partition("=") for word in text.split())
    return {key: value for key, sep, value in pairs if sep}


def chunk_text(text: str, index: int) -> str:
    return f"{text} #{index}"


async def slow(ctx: TaskContext) -> str:
    text = ctx.text
    settings = options(text)
    chunks = int(settings.get("chunks", "5"))
    delay = float(settings.get("delay", "0.02"))
    pause = float(settings.get("pause", "0"))
    if pause:
        await asyncio.sleep(pause)
    artifact_id: str | None = None
    for index in range(chunks):
        artifact_id = await ctx.artifact(
            chunk_text(text, index),
            artifact_id=artifact_id,
            name=ARTIFACT,
            append=index > 0,
            last_chunk=index == chunks - 1,
        )
        if delay:
            await asyncio.sleep(delay)
    return f"done: {text}"


async def scripted(ctx: TaskContext) -> str | None:
    if ctx.turn > 1:  # the reply to WAIT_QUESTION
        return f"done: {ctx.text}"
    if "wait" in ctx.text.split():
        await ctx.ask(WAIT_QUESTION)
        return None
    return await slow(ctx)


async def failing(ctx: TaskContext) -> None:
    """Fails every task, as an agent whose model provider is down would."""
    await ctx.fail("The model provider is unreachable.")


async def durable(ctx: TaskContext) -> str | None:
    """For the dev restart tests. ``hold=PATH``: the first run creates PATH, reports that it
    started, and then works for an hour (the test kills dev meanwhile); a run that finds PATH
    completes at once. ``ask``: asks for input. Anything else counts its turns in the context
    store and completes with ``"<text> (turn N of this context)"``."""
    text = ctx.text
    marker = options(text).get("hold")
    if marker is not None:
        if await asyncio.to_thread(_claim_marker, Path(marker)):
            return f"resumed: {text}"
        await ctx.update("started")
        await asyncio.sleep(3600)
        return "not reached"
    if text == "ask":
        await ctx.ask("What next?")
        return None
    state = await ctx.change_context(_one_more_turn)
    assert isinstance(state, dict)
    return f"{text} (turn {state['turns']} of this context)"


def _claim_marker(path: Path) -> bool:
    """Whether ``path`` existed; creates it if not."""
    if path.exists():
        return True
    path.touch()
    return False


def _one_more_turn(current: JsonValue) -> JsonValue:
    turns = current.get("turns", 0) if isinstance(current, dict) else 0
    return {"turns": (turns if isinstance(turns, int) else 0) + 1}
