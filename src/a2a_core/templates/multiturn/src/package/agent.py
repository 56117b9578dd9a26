"""A two-turn agent: it outlines a piece about the topic it is given, asks who the piece is for
(the task waits for the answer: ``input-required``), and completes the task on the reply.

``ctx.turn`` says which turn of the task this is (1 for the message that created it, counted by
the server); a client answers by sending its reply to the same task. Put your model calls in
place of the outline.
"""

from a2a_core import TaskContext

QUESTION = "Who is the piece for: beginners or experts?"


async def agent(ctx: TaskContext) -> str | None:
    if ctx.turn == 1:
        topic = ctx.text or "your topic"
        await ctx.update(f"Outlining a piece about {topic}...")  # progress
        await ctx.artifact(_outline(topic), name="outline")  # a result the task keeps
        await ctx.ask(QUESTION)  # input-required: this turn ends, the task waits for the reply
        return None
    audience = ctx.text or "everyone"
    return f"Done: the outline is written for {audience}."  # the task completes with this message


def _outline(topic: str) -> str:
    return f"Outline: {topic}\n1. The basics\n2. How it works\n3. Where to go next\n"
