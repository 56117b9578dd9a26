"""Agent cards over HTTP, cacheable (spec 8.6.1): ``Cache-Control`` with a ``max-age``, a weak
``ETag``, and ``If-None-Match`` answered 304 without the body.

The tag is a hash of the card without its ``signatures``, as a2a-sdk 1.3's is: every instance of
a deployment signs the card itself (with a randomized algorithm, ES256), so signatures differ
between instances while the card they cover does not, and a tag over them would never match. A
weak tag claims the same content, which two signings of one card are; the signature a client
keeps after a 304 still covers it. The public cards are ``public`` (shared caches may keep
them); the extended card, served only to authenticated callers, is ``private``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping

from starlette.responses import Response

from a2a_core.web.edge import JSON


def card_response(
    request_headers: Mapping[str, str], body: bytes, *, max_age: int, private: bool = False
) -> Response:
    """``body`` (a card document) with its caching headers, or 304 when the client holds it."""
    headers = {
        "ETag": etag(body),
        "Cache-Control": f"{'private' if private else 'public'}, max-age={max_age}",
    }
    if _holds(request_headers.get("if-none-match"), headers["ETag"]):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=JSON, headers=headers)


@functools.lru_cache(maxsize=64)  # each served card is one cached bytes object per host name
def etag(body: bytes) -> str:
    """The weak tag of a card document: its content, its signatures left out (module doc)."""
    document = json.loads(body)
    if isinstance(document, dict):
        document.pop("signatures", None)
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    return f'W/"{hashlib.sha256(canonical).hexdigest()[:32]}"'


def _holds(if_none_match: str | None, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (RFC 9110 13.1.2: weak comparison, or ``*``)."""
    if not if_none_match:
        return False
    candidates = [candidate.strip() for candidate in if_none_match.split(",")]
    return "*" in candidates or any(c.removeprefix("W/") == tag.removeprefix("W/") for c in candidates)
