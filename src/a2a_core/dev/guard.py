"""The doors of `a2a-serverless dev`: which host names, web pages and bodies reach the local server.

A server on a developer's 127.0.0.1 is reachable from every web page their browser opens. Three
checks, as ASGI middleware in front of every route (so any protocol binding gets them):

- ``Host`` must be the bound address or ``localhost`` (421 otherwise). DNS rebinding points a
  name the attacker owns at 127.0.0.1, which makes their page same-origin with this server; the
  browser still sends their name as the Host.
- A request with an ``Origin`` (a browser's) from another origin is refused (403) unless
  ``--cors-origin`` allows that origin; allowed origins get real CORS from Starlette's
  `CORSMiddleware` (preflights answered, ``Access-Control-Allow-Origin`` on answers). The
  server's own pages (``/docs``) are same-origin and always allowed.
- A POST with a body must carry a JSON content type (415 otherwise): a web page can send
  ``text/plain`` or a form to any server without asking first, but not ``application/json``.
  (A bodiless POST, as A2A 1.0's ``/tasks/{id}:cancel`` may be, has nothing to declare; a
  browser sending one cross-origin is refused by the ``Origin`` check.)

Each refusal says what to change, in the shape of the request's generation and binding
(`a2a_core.web.edge.refusal`), and leaves a warning in the log.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from a2a_core.settings import SettingsError
from a2a_core.web.edge import refusal

logger = logging.getLogger(__name__)
_WILDCARDS = {"", "0.0.0.0", "::"}  # every interface


def parse_origin(value: str) -> str:
    """``scheme://host[:port]`` as browsers send it in ``Origin``; raises `SettingsError`."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsError(f"--cors-origin {value!r} must look like https://app.example.com[:port]")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise SettingsError(f"--cors-origin {value!r} must be an origin only, without path or query")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


@dataclass(frozen=True)
class DevDoors:
    """``hosts``: what ``--host`` named and the address actually bound; ``cors_origins``: the
    origins (``https://app.example.com:3000``) whose pages may call the server."""

    hosts: tuple[str, ...]
    cors_origins: tuple[str, ...] = ()

    @classmethod
    def build(cls, hosts: Iterable[str], cors_origins: Iterable[str] = ()) -> DevDoors:
        origins = tuple(dict.fromkeys(parse_origin(origin) for origin in cors_origins))
        return cls(tuple(dict.fromkeys(h.strip("[]").lower() for h in hosts)), origins)

    @property
    def any_address(self) -> bool:
        """Bound to every interface: any IP literal is an address of this machine's server."""
        return any(host in _WILDCARDS for host in self.hosts)

    def host_allowed(self, host: str) -> bool:
        if host in self.hosts or host == "localhost":
            return True
        return self.any_address and _is_ip(host)

    def install(self, app: Starlette) -> None:
        """Wrap ``app``'s routes: Host and Origin first, then CORS, then the content type."""
        app.add_middleware(JsonBodies)
        if self.cors_origins:
            app.add_middleware(
                CORSMiddleware,
                allow_origins=list(self.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["*"],
                max_age=600,
            )
        app.add_middleware(HostAndOrigin, doors=self)


class HostAndOrigin:
    def __init__(self, app: ASGIApp, doors: DevDoors) -> None:
        self.app = app
        self.doors = doors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refused = self._refusal(scope, headers)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused
        logger.warning("refused %s %s: %s", scope["method"], scope["path"], message)
        await refusal(scope, status, message)(scope, receive, send)

    def _refusal(self, scope: Scope, headers: Headers) -> tuple[int, str] | None:
        raw_host = headers.get("host")
        if raw_host is not None:
            host = _hostname(raw_host)
            if host is None or not self.doors.host_allowed(host):
                allowed = ", ".join(sorted({*self.doors.hosts, "localhost"} - _WILDCARDS))
                return 421, (
                    f"this dev server answers only to the hosts it is bound to ({allowed}), not to "
                    f"Host {raw_host!r}: use http://localhost:<port>/, or bind the name with --host "
                    "(a page on another name reaching 127.0.0.1 is how DNS rebinding attacks work)"
                )
        origin = headers.get("origin")
        if origin is None or origin in self.doors.cors_origins or _same_origin(origin, scope, raw_host):
            return None
        return 403, (
            f"cross-origin browser request from {origin!r} refused: any web page could otherwise "
            f"call this dev server. To allow that page, restart with --cors-origin {origin}"
        )


class JsonBodies:
    """A POST's body must be declared JSON: ``application/json`` or ``application/*+json``; a POST
    without a body (no ``Content-Length`` above 0 and no ``Transfer-Encoding``) declares nothing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            headers = Headers(scope=scope)
            declared = headers.get("content-type")
            if not is_json(declared) and _has_body(headers):
                message = (
                    f"Content-Type must be application/json (or application/*+json such as "
                    f"application/a2a+json), not {declared or 'missing'}; with curl add "
                    "-H 'content-type: application/json'"
                )
                logger.warning("refused POST %s: %s", scope["path"], message)
                await refusal(scope, 415, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _has_body(headers: Headers) -> bool:
    # HTTP/1.1: a request with neither header has no body.
    length = (headers.get("content-length") or "").strip()
    return "transfer-encoding" in headers or length not in ("", "0")


def is_json(content_type: str | None) -> bool:
    """``application/json`` or ``application/<anything>+json``, with any parameters."""
    media = (content_type or "").split(";")[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def _hostname(host_header: str) -> str | None:
    try:
        parts = urlsplit(f"//{host_header}")
        parts.port  # noqa: B018 (raises on a malformed port)
    except ValueError:
        return None
    return (parts.hostname or "").rstrip(".") or None


def _same_origin(origin: str, scope: Scope, host_header: str | None) -> bool:
    """Whether ``origin`` is this server as the request reached it (its own pages)."""
    if host_header is None:
        return False
    scheme = str(scope.get("scheme", "http"))
    return _origin_key(origin) == _origin_key(f"{scheme}://{host_header}")


def _origin_key(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme.lower(), (parts.hostname or "").rstrip("."), port or default


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
