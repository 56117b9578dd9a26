"""``a2a-serverless check URL``: a self-test of a deployed agent, one line per check.

The card (and its signature), then on each interface the card declares (A2A 1.0 JSON-RPC and
HTTP+JSON, 0.3 JSON-RPC): send, a second turn when the agent asks for input, get, list, stream,
cancel, and push when a webhook is given (``checks`` says what each one does). Each line is ``ok``,
``failed`` with the reason, or ``skipped`` with why; ``--json`` prints one document instead.
Exit 0 when no check failed, 1 when one did, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from a2a_core.cli.errors import EXIT_USAGE

if TYPE_CHECKING:
    from a2a_core.cli.checks import CheckResult

EXIT_FAILED = 1


def add_parser(commands: Any) -> None:
    from a2a_core.cli.client import add_common_options

    check = commands.add_parser(
        "check",
        help="self-test a deployed agent: card, each interface, send/get/list/stream/cancel, push",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("url", help="the agent's base URL (e.g. the stack's AgentUrl output)")
    check.add_argument("--message", default="Hello from a2a-serverless check", help="what to send the agent")
    check.add_argument(
        "--reply",
        default="Thank you, that is all.",
        help="the answer, when the agent asks for input (input-required)",
    )
    check.add_argument(
        "--webhook",
        metavar="URL",
        help="check push notifications: a receiver the agent can reach; the check sees whether the "
        "agent accepts it (your receiver sees whether it arrives)",
    )
    check.add_argument(
        "--webhook-listen",
        metavar="HOST:PORT",
        type=_address,
        help="receive the notifications here and verify them (only when the agent can reach this "
        "machine; with --webhook, that public URL must forward to HOST:PORT)",
    )
    add_common_options(check, timeout_help="seconds each check may take, the agent's turns included")


def run(args: argparse.Namespace, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    try:
        import httpx

        from a2a_core.cli.checks import AgentCheck, CheckOptions
        from a2a_core.cli.client import load_jwks
        from a2a_core.cli.webhook import WebhookReceiver
    except ImportError as error:
        print(f"a2a-serverless check: needs {error.name}: pip install 'a2a-serverless[client]'", file=stderr)
        return EXIT_USAGE
    try:
        jwks = load_jwks(args.card_jwks)
        receiver = WebhookReceiver(*args.webhook_listen) if args.webhook_listen else None
    except (OSError, ValueError) as error:
        print(f"a2a-serverless check: {error}", file=stderr)
        return EXIT_USAGE
    options = CheckOptions(
        url=args.url,
        headers=dict(args.header),
        timeout=args.timeout,
        message=args.message,
        reply=args.reply,
        card_jwks=jwks,
        webhook=args.webhook or (receiver.url if receiver else None),
        receiver=receiver,
    )
    report = Report(stdout, json_mode=args.json)
    if not args.json:
        stdout.write(f"Checking {args.url}\n")

    async def main() -> None:
        async with httpx.AsyncClient(timeout=args.timeout, follow_redirects=True) as http:
            await AgentCheck(options, http, report.add).run()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        print("interrupted", file=stderr)
        return 130
    finally:
        if receiver is not None:
            receiver.close()
    return report.finish(args.url)


class Report:
    def __init__(self, stdout: TextIO, *, json_mode: bool) -> None:
        """Human mode prints each line as its check ends; JSON mode one document at the end."""
        self.stdout = stdout
        self.json_mode = json_mode
        self.results: list[CheckResult] = []

    def add(self, result: CheckResult) -> None:
        self.results.append(result)
        if not self.json_mode:
            where = f"{result.interface}  {result.check}" if result.interface else result.check
            self.stdout.write(f"{result.status:<8} {where:<28} {result.detail}\n")
            self.stdout.flush()

    def finish(self, url: str) -> int:
        counts = {
            status: sum(r.status == status for r in self.results) for status in ("ok", "failed", "skipped")
        }
        passed = counts["failed"] == 0 and counts["ok"] > 0
        if self.json_mode:
            checks = [result.__dict__ for result in self.results]
            self.stdout.write(json.dumps({"url": url, "passed": passed, **counts, "checks": checks}) + "\n")
        else:
            summary = ", ".join(f"{count} {status}" for status, count in counts.items())
            self.stdout.write(f"{summary}: {'every check passed' if passed else 'FAILED'}\n")
        return 0 if passed else EXIT_FAILED


def _address(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)
