"""The ``a2a-serverless`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from a2a_core.cli import client as client_cli
from a2a_core.cli import dev as dev_cli
from a2a_core.cli import keys as keys_cli
from a2a_core.settings import SettingsError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="a2a-serverless", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    dev_cli.add_parser(commands)
    client_cli.add_parsers(commands)
    keys_cli.add_parser(commands)
    args = parser.parse_args(argv)
    if args.command in client_cli.COMMANDS:
        return client_cli.run(args)
    if args.command == "keys":
        return keys_cli.run(args)
    try:
        return dev_cli.run(args)
    except SettingsError as error:
        print(f"a2a-serverless: {error}", file=sys.stderr)
        return 2
