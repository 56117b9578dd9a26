"""``a2a-serverless keys``: create, list and revoke the API keys the app checks behind a function URL.

The keys live in the task table (``A2A_TABLE_NAME`` or ``--table``, the stack's ``TableName``
output), written with your own AWS credentials; the API function only reads them. A new key is
printed once, on stdout, and only its SHA-256 is stored. Changes need no deployment: a new key
works at once, a revoked one stops working within ``A2A_API_KEY_CACHE_SECONDS`` (60 s).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from a2a_core.settings import Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.auth.key_store import ApiKeyStore, StoredKey

_DAY = 24 * 3600


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = commands.add_parser(
        "keys", help="manage API keys for a function URL deployment", description=__doc__
    )
    keys.add_argument("--table", help="the task table (default: A2A_TABLE_NAME)")
    keys.add_argument("--region", help="its region (default: A2A_AWS_REGION, AWS_REGION, else us-east-1)")
    keys.add_argument("--endpoint-url", help="an AWS endpoint to use instead (an emulator)")
    actions = keys.add_subparsers(dest="keys_command", required=True)
    create = actions.add_parser("create", help="create a key for a caller and print it (once)")
    create.add_argument(
        "name", help="the caller: its tasks belong to this name, whichever of its keys it uses"
    )
    create.add_argument("--rate-limit", type=float, help="requests per second (default: the deployment's)")
    create.add_argument(
        "--burst-limit",
        type=int,
        help="requests at once after a pause (default: the deployment's)",
    )
    create.add_argument("--expires-in-days", type=float, help="the key stops working after this many days")
    listing = actions.add_parser("list", help="list every key (never the keys themselves)")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    revoke = actions.add_parser("revoke", help="revoke keys by id, or every key of a name")
    revoke.add_argument("key_ids", nargs="*", metavar="KEY_ID", help="ids from `keys list`")
    revoke.add_argument("--name", help="revoke every live key of this caller")


def run(args: argparse.Namespace) -> int:
    try:
        store = _store(args)
        handlers = {"create": _create, "list": _list, "revoke": _revoke}
        return asyncio.run(handlers[args.keys_command](store, args))
    except (SettingsError, ValueError) as error:
        print(f"a2a-serverless keys: {error}", file=sys.stderr)
        return 2


def _store(args: argparse.Namespace) -> ApiKeyStore:
    from a2a_core.aws.clients import build_clients
    from a2a_core.cli.errors import require_aws_credentials
    from a2a_core.compose.aws import build_key_store

    # An operator's shell names its region the AWS way; A2A_AWS_REGION still wins, as for the app.
    region = args.region or os.environ.get("A2A_AWS_REGION") or os.environ.get("AWS_REGION")
    settings = Settings.from_env(table_name=args.table, aws_region=region, aws_endpoint_url=args.endpoint_url)
    if not settings.table_name:
        raise SettingsError("name the task table: --table or A2A_TABLE_NAME (the stack's TableName output)")
    require_aws_credentials()
    clients = build_clients(settings.aws_region, settings.aws_endpoint_url)
    return build_key_store(settings, clients)  # the store the app behind a function URL reads


async def _create(store: ApiKeyStore, args: argparse.Namespace) -> int:
    from a2a_core.auth.key_store import generate_key

    now = time.time()
    days = args.expires_in_days
    new = generate_key(
        args.name,
        now=now,
        expires_at=now + days * _DAY if days is not None else None,
        rate_limit=args.rate_limit,
        burst_limit=args.burst_limit,
    )
    await store.add(new.stored)
    print(
        f"created key {new.stored.key_id} for {new.stored.name} (send it as x-api-key; shown once)",
        file=sys.stderr,
    )
    print(new.key)
    return 0


async def _list(store: ApiKeyStore, args: argparse.Namespace) -> int:
    keys = await store.list()
    now = time.time()
    for key in keys:
        if args.json:
            print(json.dumps({**key.__dict__, "digest": None, "state": _state(key, now)}))
        else:
            limits = f"{key.rate_limit or '-'}/s burst {key.burst_limit or '-'}"
            print(f"{key.key_id}  {key.name:<24} {_time(key.created_at)}  {_state(key, now):<24} {limits}")
    if not keys and not args.json:
        print("no keys", file=sys.stderr)
    return 0


async def _revoke(store: ApiKeyStore, args: argparse.Namespace) -> int:
    ids: Sequence[str] = args.key_ids
    if args.name:
        ids = [*ids, *(k.key_id for k in await store.list() if k.name == args.name and k.revoked_at is None)]
    if not ids:
        print("a2a-serverless keys revoke: name key ids or --name (nothing revoked)", file=sys.stderr)
        return 2
    missing = 0
    for key_id in dict.fromkeys(ids):
        key = await store.revoke(key_id, at=time.time())
        if key is None:
            print(f"no key {key_id}", file=sys.stderr)
            missing += 1
        else:
            print(f"revoked {key.key_id} ({key.name})", file=sys.stderr)
    return 1 if missing else 0


def _state(key: StoredKey, now: float) -> str:
    if key.revoked_at is not None:
        return f"revoked {_time(key.revoked_at)}"
    if key.expires_at is not None:
        return f"{'expired' if now >= key.expires_at else 'expires'} {_time(key.expires_at)}"
    return "live"


def _time(epoch: float) -> str:
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).strftime("%Y-%m-%dT%H:%MZ")
