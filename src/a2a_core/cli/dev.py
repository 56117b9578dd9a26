"""``a2a-serverless dev``: run the agent server and a worker locally."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import Any

from a2a_core.cli.errors import cannot_listen, require_aws_credentials
from a2a_core.discovery import AgentRef, find_agent, import_agent
from a2a_core.settings import Settings, SettingsError


def add_parser(commands: Any) -> None:
    dev = commands.add_parser("dev", help="run the agent server and a worker locally")
    dev.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    dev.add_argument("--port", type=int, default=8000, help="port (0 picks a free one; default: 8000)")
    dev.add_argument(
        "--agent",
        help="the agent as package.module:attribute (default: the one [tool.a2a-serverless] names in the "
        "project's pyproject.toml; outside a project, the echo example)",
    )
    dev.add_argument(
        "--project",
        type=Path,
        metavar="DIR",
        help="the project to serve (default: the nearest pyproject.toml with a [tool.a2a-serverless] "
        "table, from the current directory up); its code is importable as uvicorn's --app-dir makes it",
    )
    dev.add_argument(
        "--backend",
        choices=["local", "memory", "aws"],
        help="where tasks live: local = embedded AWS emulation (moto), the default; memory = this "
        "process only; aws = real resources named by A2A_* variables",
    )
    dev.add_argument(
        "--worker",
        choices=["warm", "fresh"],
        default="warm",
        help="warm = the agent is imported once and serves every turn (default); fresh = each turn "
        "runs on an agent imported anew from your modules, as on a Lambda worker that just started, "
        "so state kept in memory between turns is visibly lost (and edits to your code apply at the "
        "next turn)",
    )
    dev.add_argument(
        "--lambda-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="local backend: the emulated worker Lambda's timeout (default: 900, as deployed). "
        "Shrink it to try the long-turn worker in seconds: a project whose max_turn_seconds is "
        "longer has its turns run by a long-turn worker process per turn, as Fargate runs them",
    )
    dev.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    kept = dev.add_mutually_exclusive_group()
    kept.add_argument(
        "--state-dir",
        type=Path,
        help="local backend: keep tasks, contexts and push configs in this directory across restarts, "
        "and resume runs that were in flight when dev stopped (default: .a2a-dev)",
    )
    kept.add_argument(
        "--fresh",
        action="store_true",
        help="local backend: start empty and keep nothing (the state directory is left alone)",
    )
    dev.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let web pages from this origin (https://app.example.com:3000) call the server, with "
        "CORS; repeatable. Other cross-origin browser requests are refused",
    )
    dev.add_argument(
        "--auth",
        choices=["none", "api_key", "jwt"],
        help="how callers authenticate (default: A2A_AUTH_MODE, else none): api_key checks x-api-key "
        "against A2A_API_KEYS (or a key printed at start-up); jwt checks bearer tokens from "
        "A2A_JWT_* (or from a local test issuer whose tokens are printed)",
    )


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from a2a_core.adapters.fresh import FreshAgent
    from a2a_core.dev.console import QuietLifecycle, banner, bind, stop_on_sigterm, stopped
    from a2a_core.dev.guard import DevDoors
    from a2a_core.dev.stack import build_dev_stack
    from a2a_core.emulator.state import DEFAULT_STATE_DIR

    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    backend = args.backend or os.environ.get("A2A_BACKEND") or "local"
    if backend != "local" and (args.state_dir or args.fresh):
        raise SettingsError(f"--state-dir and --fresh are for the local backend, not {backend}")
    ref = _agent(args)
    home = ref.project.root if ref.project is not None else Path()
    state_dir = None if backend != "local" or args.fresh else args.state_dir or home / DEFAULT_STATE_DIR
    # The project's card (name, description, skills), unless A2A_* variables say otherwise.
    card = ref.project.card_environment() if ref.project is not None else {}
    card |= ref.project.turn_environment() if ref.project is not None else {}
    settings = Settings.from_env({**card, **os.environ}, agent=ref.spec, backend=backend, auth_mode=args.auth)
    if backend == "aws":
        require_aws_credentials()  # before serving, not on every request
    try:
        sock = bind(args.host, args.port)
    except OSError as error:
        raise cannot_listen(args.host, args.port, error) from None
    try:
        host, port = sock.getsockname()[:2]
        doors = DevDoors.build((args.host, host), args.cors_origin)
        agent = FreshAgent(ref) if args.worker == "fresh" else import_agent(ref)
        stack = build_dev_stack(
            settings, agent, doors=doors, state_dir=state_dir, lambda_timeout=args.lambda_timeout
        )
    except BaseException:
        sock.close()
        raise
    url = f"http://{host}:{port}/"
    described = ref.describe() + (
        ", imported anew for each turn (--worker fresh)" if args.worker == "fresh" else ""
    )
    print(banner(url, stack.description, stack.auth, stack.kept, agent=described), flush=True)
    config = uvicorn.Config(stack.app, log_level=args.log_level, lifespan="on")
    server = uvicorn.Server(config)
    logging.getLogger("uvicorn.error").addFilter(QuietLifecycle())
    stop_on_sigterm()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve(sockets=[sock]))
    print(stopped(str(state_dir) if state_dir else ""), flush=True)
    return 0


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 1 <= seconds <= 900:
        raise argparse.ArgumentTypeError(f"a Lambda timeout is 1 to 900 seconds, not {text}")
    return seconds


def _agent(args: argparse.Namespace) -> AgentRef:
    """``--agent``, else ``A2A_AGENT``, else the project's agent (outside a project, the echo example)."""
    if args.agent:
        return find_agent(args.agent, named_by="--agent", project_dir=args.project)
    return find_agent(os.environ.get("A2A_AGENT") or None, named_by="A2A_AGENT", project_dir=args.project)
