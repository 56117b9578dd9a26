"""What `a2a-serverless dev` does at the terminal: bind its socket, print its banner, say in one
line that it stopped."""

from __future__ import annotations

import logging
import signal
import socket
from types import FrameType

from a2a_core.dev.auth import DevAuth


def bind(host: str, port: int) -> socket.socket:
    """Bind before serving so ``--port 0`` can report the port the OS chose."""
    # IPPROTO_TCP explicitly: asyncio only turns Nagle off (TCP_NODELAY) on sockets created that
    # way, and without it every stream's first SSE event waited ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # Listen now, so a client started the moment the URL is printed is queued, not refused.
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def banner(
    url: str, backend: str = "", auth: DevAuth | None = None, kept: str = "", *, agent: str = ""
) -> str:
    credentials = auth.curl_header if auth else ""
    curl = (
        f'curl -s {url} {credentials}-H \'content-type: application/json\' -d \'{{"jsonrpc":"2.0","id":1,'
        '"method":"message/send","params":{"message":{"role":"user","messageId":"m1",'
        '"parts":[{"kind":"text","text":"hello"}]}}}\''
    )
    return (
        f"A2A agent listening on {url}\n"
        f"Agent card: {url}.well-known/agent-card.json\n"
        + (f"Agent:      {agent}\n" if agent else "")
        + f"Tasks in:   {backend}\n"
        + (f"Kept:       {kept}\n" if kept else "")
        + "".join(f"{line}\n" for line in (auth.lines if auth else []))
        + f"Try it:     {curl}\n"
    )


# uvicorn's account of its own start and stop: the banner and `stopped` say it in fewer lines.
LIFECYCLE = (
    "Started server process",
    "Waiting for application startup",
    "Application startup complete",
    "Shutting down",
    "Waiting for application shutdown",
    "Application shutdown complete",
    "Finished server process",
)


class QuietLifecycle(logging.Filter):
    """Drops uvicorn's start and stop lines (install on the ``uvicorn.error`` logger)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno == logging.INFO and str(record.msg).startswith(LIFECYCLE))


def stop_on_sigterm() -> None:
    """SIGTERM stops dev as Ctrl-C does. uvicorn shuts down on either, then raises the signal
    again for the handler found before it: SIGTERM's default would end the process there, before
    its last line."""

    def interrupt(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def stopped(state: str) -> str:
    """The one line dev prints once it has shut down."""
    return "a2a-serverless dev stopped" + (f"; its tasks are kept in {state}" if state else "")
