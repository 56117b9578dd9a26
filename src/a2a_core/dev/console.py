"""What `a2a-serverless dev` does at the terminal: bind its socket, print its banner."""

from __future__ import annotations

import socket

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
