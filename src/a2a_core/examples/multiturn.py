"""A two-turn agent: it streams a draft as artifact chunks, asks who the audience is
(``input-required``), and finishes the task on the reply (``ctx.turn`` tells the turns apart)."""

from __future__ import annotations

import asyncio

from a2a_core import Agent, TaskContext

DRAFT = "Here is a first draft about {topic}: an opening, three key points, and a short summary."


class DraftWriter(Agent):
    def __init__(self, chunk_words: int = 4, delay: float = 0.02) -> None:
        self.chunk_words = chunk_words
        self.delay = delay

    async def run(self, ctx: TaskContext) -> None:
        if ctx.turn == 1:
            await self._stream_draft(ctx, topic=ctx.text or "your topic")
            await ctx.ask("Who is the audience for this piece?")
            return
        audience = ctx.text or "everyone"
        await ctx.artifact(f"Final version, written for {audience}.", name="final", last_chunk=True)
        await ctx.complete(f"Done: the draft is tailored for {audience}.")

    async def _stream_draft(self, ctx: TaskContext, topic: str) -> None:
        words = DRAFT.format(topic=topic).split(" ")
        chunks = [
            " ".join(words[i : i + self.chunk_words]) + " " for i in range(0, len(words), self.chunk_words)
        ]
        artifact_id: str | None = None
        for index, chunk in enumerate(chunks):
            artifact_id = await ctx.artifact(
                chunk,
                artifact_id=artifact_id,
                name="draft",
                append=index > 0,
                last_chunk=index == len(chunks) - 1,
            )
            await asyncio.sleep(self.delay)


agent = DraftWriter()
