"""The ``a2a-serverless`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from a2a_core.cli import check as check_cli
from a2a_core.cli import client as client_cli
from a2a_core.cli import dev as dev_cli
from a2a_core.cli import init as init_cli
from a2a_core.cli import keys as keys_cli
from a2a_core.cli.errors import EXIT_USAGE, CommandError, missing_extra
from a2a_core.project import ProjectError
from a2a_core.settings import SettingsError

# The extra that brings what each command imports (the client commands say theirs themselves;
# init needs only the base install).
EXTRAS = {"dev": "local", "keys": "aws"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="a2a-serverless", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    init_cli.add_parser(commands)
    dev_cli.add_parser(commands)
    client_cli.add_parsers(commands)
    check_cli.add_parser(commands)
    keys_cli.add_parser(commands)
    args = parser.parse_args(argv)
    if args.command in client_cli.COMMANDS:
        return client_cli.run(args)
    if args.command == "check":
        return check_cli.run(args)
    # Looked up now, not at import, so a test can replace a command's run.
    runners: dict[str, Callable[[argparse.Namespace], int]] = {
        "dev": dev_cli.run,
        "keys": keys_cli.run,
        "init": init_cli.run,
    }
    try:
        return runners[args.command](args)
    except (SettingsError, CommandError, ProjectError) as error:
        return _fail(args.command, error)
    except ModuleNotFoundError as error:
        extra = missing_extra(error, EXTRAS[args.command]) if args.command in EXTRAS else None
        if extra is None:
            raise
        return _fail(args.command, extra)


def _fail(command: str, error: Exception) -> int:
    print(f"a2a-serverless {command}: {error}", file=sys.stderr)
    return EXIT_USAGE


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("a2a-serverless")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"
