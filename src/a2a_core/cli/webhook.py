"""``check --webhook-listen``: a webhook receiver on this machine, for an agent that can reach it.

It records every POST and answers 200; `verified` waits for a notification about one task and
checks it as a receiver must (`a2a_core.push.verify`: the agent's signature, issuer, audience,
body hash, token).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes


class WebhookReceiver:
    def __init__(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (in a thread) until `close`; OSError if it cannot."""
        self.received: list[Received] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with receiver._lock:
                    receiver.received.append(Received(dict(self.headers.items()), body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.host, self.port = str(self._server.server_address[0]), int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/a2a-check"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    async def verified(
        self,
        task_id: str,
        token: str,
        *,
        audience: str,
        issuer: str,
        jwks: Mapping[str, Any],
        within: float,
    ) -> str:
        """Wait up to ``within`` seconds for a notification carrying ``token`` (the config this
        check set) about ``task_id``, and verify it; ValueError saying what arrived otherwise."""
        from a2a_core.push.verify import TOKEN_HEADER, NotificationRejectedError, verify_notification

        deadline = asyncio.get_running_loop().time() + within
        while True:
            with self._lock:
                arrived = list(self.received)
            ours = [n for n in arrived if _header(n.headers, TOKEN_HEADER) == token]
            for notification in ours:
                try:
                    claims = verify_notification(
                        notification.headers,
                        notification.body,
                        jwks=jwks,
                        audience=audience,
                        issuer=issuer,
                        expected_token=token,
                    )
                except NotificationRejectedError as error:
                    hint = " (the agent names A2A_PUBLIC_URL as iss: set it to the agent's URL)"
                    hint = hint if str(error).startswith("iss ") else ""
                    raise ValueError(f"a notification arrived but does not verify: {error}{hint}") from None
                if claims.get("taskId") == task_id:
                    return f"a notification about task {task_id} arrived, signed by the agent, and verifies"
            if asyncio.get_running_loop().time() >= deadline:
                others = len(arrived) - len(ours)
                raise ValueError(
                    f"no notification about task {task_id} arrived within {within:.0f} s"
                    + (f" ({others} others did, without this check's token)" if others else "")
                )
            await asyncio.sleep(0.1)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    return next((value for key, value in headers.items() if key.lower() == name), None)
