"""ListTasks page tokens: opaque to clients, authenticated, bound to one caller and one query.

A token is base64url (no padding) of a small JSON payload (where the next page starts, how many
tasks the listing's earlier pages held, when the token expires) followed by a 16-byte
HMAC-SHA256 tag over the payload *and* the listing's scope: the owner and the filters of the
request that earned it. A token is only accepted back with the same scope, so it cannot be
forged, edited, or replayed by another caller or with other filters; clients learn nothing from
it but its length.

Isolation never rests on the token: every page queries the caller's own index partition, so a
token could at worst move a caller around its own tasks. The tag keeps that honest (a position
is always one the server handed out) and gives every malformed token one clear error.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from a2a_core.core.errors import InvalidParamsError

_TAG_BYTES = 16
# Longer than any token we issue (a position is well under 200 characters): refused unread.
_MAX_TOKEN_CHARS = 1024
_CONTEXT = b"a2a-serverless ListTasks page token v1"
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
# A listing's pages are meant to be read in one sitting; a day covers slow clients.
DEFAULT_TTL_SECONDS = 24 * 3600

Scope = Sequence[str | None]  # the owner, then the filters, in a fixed order


@dataclass(frozen=True)
class Cursor:
    """What a token carries: where the next page starts, and how many tasks the pages before it
    listed (a lower bound of the listing's total)."""

    position: str
    listed: int


class PageTokens:
    def __init__(
        self,
        secret: bytes,
        *,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if len(secret) < 16:
            raise ValueError("a page token secret needs at least 16 bytes")
        # A key of its own, so the secret could serve other purposes without tags colliding.
        self._key = hmac.new(secret, _CONTEXT, hashlib.sha256).digest()
        self._ttl = ttl_seconds
        self._clock = clock

    def issue(self, scope: Scope, cursor: Cursor) -> str:
        expires = int(self._clock() + self._ttl)
        payload = json.dumps([cursor.position, cursor.listed, expires], separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(payload + self._tag(scope, payload)).rstrip(b"=").decode()

    def read(self, token: str, scope: Scope) -> Cursor:
        """The cursor ``token`` carries; InvalidParamsError naming ``pageToken`` unless this server
        issued it, for this scope, and it has not expired."""
        raw = _decode(token)
        payload, tag = raw[:-_TAG_BYTES], raw[-_TAG_BYTES:]
        if len(raw) <= _TAG_BYTES or not hmac.compare_digest(tag, self._tag(scope, payload)):
            raise _invalid("was not issued for this request (another caller, other filters, or edited)")
        position, listed, expires = json.loads(payload)  # ours: the tag proves it
        if self._clock() > expires:
            raise _invalid("has expired")
        return Cursor(position=position, listed=listed)

    def _tag(self, scope: Scope, payload: bytes) -> bytes:
        bound = json.dumps(list(scope), separators=(",", ":")).encode()
        mac = hmac.new(self._key, bound + b"\x00" + payload, hashlib.sha256)
        return mac.digest()[:_TAG_BYTES]


def _decode(token: str) -> bytes:
    if len(token) > _MAX_TOKEN_CHARS or not _BASE64URL.fullmatch(token):
        raise _invalid("is not a page token of this agent")
    try:
        return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise _invalid("is not a page token of this agent") from None


def _invalid(reason: str) -> InvalidParamsError:
    message = f"pageToken {reason}; list again without pageToken to start from the first page"
    return InvalidParamsError(message, data={"field": "pageToken"})
