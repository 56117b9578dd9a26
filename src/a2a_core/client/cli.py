"""``a2a-serverless send | card | get``: talk to any A2A agent from a terminal or a script.

Human output puts the agent's words on stdout and states and progress on stderr; ``--json``
prints machine-readable JSON on stdout instead (one document, or one line per streamed event).
Exit codes: 0 ok (including a task left waiting for input), 1 the task failed, was rejected or
canceled, or needs authentication, 2 usage, connection or protocol errors.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any, TextIO

# Parsing only: httpx and the protocol types load when a command runs, not for `dev`.
COMMANDS = ("send", "card", "get")
EXIT_USAGE = 2


def add_parsers(commands: Any) -> None:
    """Register the client commands on the ``a2a-serverless`` subparsers."""
    send = commands.add_parser("send", help="send a message to an agent and print its reply")
    send.add_argument("url", help="the agent's base URL (its card is read from /.well-known/)")
    send.add_argument("text", help="the message")
    send.add_argument("--task", dest="task_id", help="continue this task (one waiting for input)")
    send.add_argument("--context", dest="context_id", help="start the task in this context")
    send.add_argument(
        "--no-interactive",
        action="store_true",
        help="stop when the agent asks for input (no prompt)",
    )
    send.add_argument(
        "--no-stream", action="store_true", help="use message/send and polling even if the agent streams"
    )
    card = commands.add_parser("card", help="show an agent's card: skills, capabilities, auth")
    card.add_argument("url", help="the agent's base URL, or the URL of its card")
    get = commands.add_parser("get", help="show a task: state, history, artifacts")
    get.add_argument("url", help="the agent's base URL")
    get.add_argument("task_id", help="the task id")
    get.add_argument("--history", type=int, metavar="N", help="only the last N messages of the history")
    for parser in (send, card, get):
        parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
        parser.add_argument(
            "-H",
            "--header",
            action="append",
            default=[],
            type=_header,
            metavar="'NAME: VALUE'",
            help="an HTTP header for every request (e.g. Authorization); repeatable",
        )
        parser.add_argument("--timeout", type=float, default=60.0, help="HTTP timeout, seconds (default: 60)")


def _header(value: str) -> tuple[str, str]:
    name, sep, content = value.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected 'Name: value', got {value!r}")
    return name.strip(), content.strip()


def run(args: argparse.Namespace, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    try:
        from a2a_core.client import A2AClient, A2AClientError, A2AClientHTTPError
        from a2a_core.client.commands import COMMANDS, Io
    except ImportError as error:
        print(
            f"a2a-serverless {args.command}: needs {error.name}: pip install 'a2a-serverless[client]'",
            file=stderr,
        )
        return EXIT_USAGE
    from a2a_core.core.errors import A2AError

    io = Io(stdout, stderr, json_mode=args.json)

    async def main() -> int:
        async with A2AClient(args.url, headers=dict(args.header), timeout=args.timeout) as client:
            return await COMMANDS[args.command](client, args, io)

    try:
        return asyncio.run(main())
    except A2AError as error:
        if args.json:
            io.json({"error": {"code": error.code, "message": error.message, "data": error.data}})
        io.note(f"a2a-serverless {args.command}: the agent answered error {error.code}: {error.message}")
        return EXIT_USAGE
    except A2AClientError as error:
        io.note(f"a2a-serverless {args.command}: {error}")
        if isinstance(error, A2AClientHTTPError) and error.status_code in (401, 403):
            io.note(
                f"the card says how to authenticate (a2a-serverless card {args.url}); pass -H 'Name: value'"
            )
        return EXIT_USAGE
    except KeyboardInterrupt:
        io.note("interrupted")
        return 130
