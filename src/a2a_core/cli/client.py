"""``a2a-serverless send | card | get | tasks | cancel``: talk to any A2A agent from a terminal or a script.

The agent's card decides the protocol: A2A 1.0 over JSON-RPC when it offers it, else HTTP+JSON
1.0, else JSON-RPC 0.3 or 0.2.5; ``--binding`` and ``--protocol`` narrow the choice (to debug one
interface), ``--card-jwks`` verifies the card's signatures first.

Human output puts the agent's words on stdout and states and progress on stderr; ``--json``
prints machine-readable JSON on stdout instead (one document, or one line per streamed event).
Exit codes: 0 ok (including a task left waiting for input), 1 the task failed, was rejected or
canceled, or needs authentication, 2 usage, connection or protocol errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any, TextIO

from a2a_core.generations import GENERATIONS

# Parsing only: httpx and the protocol types load when a command runs, not for `dev`.
COMMANDS = ("send", "card", "get", "tasks", "cancel")
STATES = (
    "submitted",
    "working",
    "input-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
    "auth-required",
)
EXIT_USAGE = 2


def add_parsers(commands: Any) -> None:
    """Register the client commands on the ``a2a-serverless`` subparsers."""
    send = commands.add_parser("send", help="send a message to an agent and print its reply")
    send.add_argument("url", help="the agent's base URL (its card is read from /.well-known/)")
    send.add_argument("text", nargs="?", help="the message (a text part; with --data, optional)")
    send.add_argument(
        "--data",
        action="append",
        default=[],
        type=_json_object,
        metavar="JSON",
        help="a data part, a JSON object: the answer to what a framework asks (a Strands interrupt: "
        '\'{"interruptResponse": {"interruptId": "...", "response": "yes"}}\'); repeatable',
    )
    send.add_argument("--task", dest="task_id", help="continue this task (one waiting for input)")
    send.add_argument("--context", dest="context_id", help="start the task in this context")
    send.add_argument(
        "--no-interactive",
        action="store_true",
        help="stop when the agent asks for input (no prompt)",
    )
    send.add_argument(
        "--no-stream",
        action="store_true",
        help="send without streaming and poll the task, even if the agent streams",
    )
    card = commands.add_parser("card", help="show an agent's card: skills, capabilities, auth")
    card.add_argument("url", help="the agent's base URL, or the URL of its card")
    card.add_argument(
        "--extended",
        action="store_true",
        help="the authenticated extended card (send the credential with -H), if the card offers one",
    )
    get = commands.add_parser("get", help="show a task: state, history, artifacts")
    get.add_argument("url", help="the agent's base URL")
    get.add_argument("task_id", help="the task id")
    get.add_argument("--history", type=int, metavar="N", help="only the last N messages of the history")
    get.add_argument(
        "--wait",
        action="store_true",
        help="wait until the task ends or asks for input (by long poll when the agent offers A2A 1.1)",
    )
    tasks = commands.add_parser("tasks", help="list your tasks on an agent, newest first (A2A 1.0 ListTasks)")
    tasks.add_argument("url", help="the agent's base URL")
    tasks.add_argument("--context", dest="context_id", help="only the tasks of this context")
    tasks.add_argument("--state", choices=STATES, help="only the tasks in this state")
    tasks.add_argument(
        "--page-size", type=int, metavar="N", help="at most N tasks (the server's default: 50)"
    )
    tasks.add_argument("--page-token", metavar="TOKEN", help="the page after the one that printed this token")
    tasks.add_argument("--history", type=int, metavar="N", help="the last N messages of each task's history")
    cancel = commands.add_parser("cancel", help="cancel a task (the agent stops at its next step)")
    cancel.add_argument("url", help="the agent's base URL")
    cancel.add_argument("task_id", help="the task id")
    for parser in (send, card, get, tasks, cancel):
        add_common_options(parser)
        parser.add_argument(
            "--binding",
            choices=["jsonrpc", "rest"],
            help="use this binding only (default: JSON-RPC, or HTTP+JSON when the card offers only that)",
        )
        parser.add_argument(
            "--protocol",
            choices=[g.version for g in GENERATIONS],
            help="use this A2A version only (default: the newest the card offers)",
        )


def add_common_options(
    parser: argparse.ArgumentParser, *, timeout_help: str = "HTTP timeout, seconds"
) -> None:
    """The options of every command that talks to an agent: output, headers, timeout, card key."""
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
    parser.add_argument("--timeout", type=float, default=60.0, help=f"{timeout_help} (default: 60)")
    parser.add_argument(
        "--card-jwks",
        metavar="URL|FILE",
        help="verify the card's signature with this JWKS (a URL, or a JSON file) before anything else",
    )


def _json_object(value: str) -> dict[str, Any]:
    try:
        document = json.loads(value)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not JSON ({error}): {value!r}") from None
    if not isinstance(document, dict):
        raise argparse.ArgumentTypeError(f"a data part holds a JSON object, got {value!r}")
    return document


def _header(value: str) -> tuple[str, str]:
    name, sep, content = value.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected 'Name: value', got {value!r}")
    return name.strip(), content.strip()


def run(args: argparse.Namespace, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    try:
        from a2a_core.cli.commands import COMMANDS, Io
        from a2a_core.client import A2AClient, A2AClientError, A2AClientHTTPError
    except ImportError as error:
        print(
            f"a2a-serverless {args.command}: needs {error.name}: pip install 'a2a-serverless[client]'",
            file=stderr,
        )
        return EXIT_USAGE
    from a2a_core.core.errors import A2AError

    io = Io(stdout, stderr, json_mode=args.json)
    if args.command == "send" and args.text is None and not args.data:
        io.note("a2a-serverless send: nothing to send: give the message's text, or --data JSON, or both")
        return EXIT_USAGE
    try:
        jwks = load_jwks(args.card_jwks)
    except (OSError, ValueError) as error:
        io.note(f"a2a-serverless {args.command}: --card-jwks: {error}")
        return EXIT_USAGE

    async def main() -> int:
        async with A2AClient(
            args.url,
            headers=dict(args.header),
            timeout=args.timeout,
            binding=args.binding,
            protocol_version=args.protocol,
            card_jwks=jwks,
        ) as client:
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


def load_jwks(value: str | None) -> str | dict[str, Any] | None:
    """A JWKS URL as it is; a file's JSON object."""
    if value is None or value.startswith(("http://", "https://")):
        return value
    with open(value, encoding="utf-8") as file:
        document = json.load(file)
    if not isinstance(document, dict):
        raise ValueError(f"{value} does not hold a JWKS (a JSON object)")
    return document
