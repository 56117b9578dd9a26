"""What ``a2a-serverless send``, ``card``, ``get``, ``tasks`` and ``cancel`` do, once parsed."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TextIO

from a2a_core.cli.printer import Outcome, Printer, exit_code
from a2a_core.cli.render import card_summary, continue_hint, task_line, task_summary
from a2a_core.client.client import A2AClient
from a2a_core.client.errors import A2AClientCardError
from a2a_core.client.events import is_final
from a2a_core.core.backoff import Backoff
from a2a_core.domain import DataPart, Message, Part, Role, Task, TaskState, TextPart, to_wire

EXIT_OK = 0
POLL_INITIAL, POLL_MAX = 0.2, 2.0


class Io:
    def __init__(self, stdout: TextIO, stderr: TextIO, *, json_mode: bool) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.json_mode = json_mode

    def json(self, document: Any) -> None:
        self.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
        self.stdout.flush()

    def note(self, text: str) -> None:
        self.stderr.write(text + "\n")
        self.stderr.flush()


async def _card(client: A2AClient, args: argparse.Namespace, io: Io) -> int:
    card = await client.get_extended_card() if args.extended else await client.get_card()
    if io.json_mode:
        io.json(to_wire(card))
        return EXIT_OK
    try:
        using = await client.interface()
    except A2AClientCardError as error:
        using = None
        io.note(f"a2a-serverless card: {error}")
    extended = client.extended if args.extended else None
    document = extended.document if extended else client.card_document
    signatures = (document or {}).get("signatures") or []
    summary = card_summary(
        card,
        interfaces=client.interfaces,
        using=using,
        signatures=len(signatures) if isinstance(signatures, list) else 0,
        verified=extended.signature if extended else client.card_signature,
        extended=extended is not None,
    )
    io.stdout.write(summary + "\n")
    return EXIT_OK


async def _get(client: A2AClient, args: argparse.Namespace, io: Io) -> int:
    task = await client.get_task(args.task_id, history_length=args.history)
    backoff = Backoff(POLL_INITIAL, POLL_MAX)
    while args.wait and not is_final(task):
        task = await next_state(client, task, backoff, io.note)
    if args.wait and args.history is not None:
        task = await client.get_task(task.id, history_length=args.history)
    if io.json_mode:
        io.json(to_wire(task))
    else:
        io.stdout.write(task_summary(task) + "\n")
    return exit_code(task.status.state)


async def _tasks(client: A2AClient, args: argparse.Namespace, io: Io) -> int:
    page = await client.list_tasks(
        context_id=args.context_id,
        state=TaskState(args.state) if args.state else None,
        page_size=args.page_size,
        page_token=args.page_token,
        history_length=args.history,
    )
    if io.json_mode:
        tasks = [to_wire(task) for task in page.tasks]
        io.json(
            {
                "tasks": tasks,
                "nextPageToken": page.next_page_token,
                "pageSize": page.page_size,
                "totalSize": page.total_size,
            }
        )
        return EXIT_OK
    for task in page.tasks:
        io.stdout.write(task_line(task) + "\n")
    io.note(f"{len(page.tasks)} of {page.total_size} task(s)")
    if page.next_page_token:
        io.note(f"more: a2a-serverless tasks {args.url} --page-token {page.next_page_token}")
    return EXIT_OK


async def _cancel(client: A2AClient, args: argparse.Namespace, io: Io) -> int:
    task = await client.cancel_task(args.task_id)
    if io.json_mode:
        io.json(to_wire(task))
    else:
        io.stdout.write(task_summary(task) + "\n")
    if task.status.state != TaskState.canceled:  # an agent may stop later than it answers
        io.note(
            f"the agent took the cancel; the task is {task.status.state.value} for now "
            f"(a2a-serverless get {args.url} {task.id} shows when it stops)"
        )
    return EXIT_OK


async def _send(client: A2AClient, args: argparse.Namespace, io: Io) -> int:
    card = await client.get_card()
    streaming = bool(card.capabilities.streaming) and not args.no_stream
    printer = Printer(io.stdout, io.stderr, json_mode=io.json_mode)
    message = outgoing_message(args.text, args.data)
    task_id, context_id = args.task_id, args.context_id
    if task_id is not None:  # continuing: what the task already holds was shown before
        printer.baseline(await client.get_task(task_id))
    while True:
        turn = _stream_turn if streaming else _poll_turn
        outcome = await turn(client, printer, message, task_id, context_id)
        if outcome.state is None:  # the agent answered with a message, no task
            return EXIT_OK
        if outcome.state == TaskState.input_required:
            reply = None if args.no_interactive else await _prompt(io)
            if reply:
                message, task_id, context_id = reply, outcome.task_id, outcome.context_id
                continue
            io.note(continue_hint(args.url, outcome.task_id, outcome.question))
        return exit_code(outcome.state)


def outgoing_message(text: str | None, data: Sequence[dict[str, Any]]) -> Message | str:
    """What ``send`` sends: the text, then a data part for each ``--data`` (a text alone stays a
    text: the client makes it a message)."""
    if not data:
        assert text is not None  # `run` refuses a send of nothing
        return text
    parts: list[Part] = [TextPart(text=text)] if text else []
    parts.extend(DataPart(data=document) for document in data)
    return Message(role=Role.user, parts=parts, message_id=uuid.uuid4().hex)


async def _stream_turn(
    client: A2AClient, printer: Printer, message: Message | str, task_id: str | None, context_id: str | None
) -> Outcome:
    async with client.stream_message(message, task_id=task_id, context_id=context_id) as events:
        async for event in events:
            printer.event(event)
    return printer.finish()


async def _poll_turn(
    client: A2AClient, printer: Printer, message: Message | str, task_id: str | None, context_id: str | None
) -> Outcome:
    result = await client.send_message(message, task_id=task_id, context_id=context_id, blocking=False)
    if isinstance(result, Task) and not is_final(result):
        printer.progress(result)
        backoff = Backoff(POLL_INITIAL, POLL_MAX)
        while True:
            result = await next_state(client, result, backoff, printer.note)
            if is_final(result):
                break
            printer.progress(result)
    printer.event(result)
    return printer.finish()


async def next_state(client: A2AClient, task: Task, backoff: Backoff, note: Callable[[str], None]) -> Task:
    """The task once it changed: by A2A 1.1's long-poll GetTask where the card offers the draft
    (one held request, answered when the task's generation advances), else read again after a
    pause that grows while nothing happens. Says how many updates fell between two reads."""
    waited = await client.long_poll(task.id, task.generation or 0)
    if waited is None:
        await asyncio.sleep(backoff.next())
        return await client.get_task(task.id)
    if task.generation and waited.generation and waited.generation > task.generation + 1:
        skipped = waited.generation - task.generation - 1
        note(f"({skipped} update{'s' if skipped > 1 else ''} of the task came and went between two reads)")
    return waited


async def _prompt(io: Io) -> str | None:
    io.stderr.write("reply> ")
    io.stderr.flush()
    line = await asyncio.to_thread(sys.stdin.readline)
    if not sys.stdin.isatty():  # a terminal echoes the reply; a pipe does not
        io.note(line.rstrip("\n"))
    return line.strip() or None


COMMANDS: dict[str, Callable[[A2AClient, argparse.Namespace, Io], Awaitable[int]]] = {
    "send": _send,
    "card": _card,
    "get": _get,
    "tasks": _tasks,
    "cancel": _cancel,
}
