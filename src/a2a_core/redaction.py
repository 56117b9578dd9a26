"""No secret in a log line, at any level: every log record this process makes is redacted as it
is made, whatever logger made it (ours, Powertools', botocore's debug output, uvicorn's access
log, the emulator's) and whatever handler writes it.

`install` is called once by each composition root (every Lambda function's handler, dev's
stack): it wraps the logging module's record factory, so no logger or handler can be missed, and
a record is redacted only when its level lets it be made at all. A record's message and its
%-arguments are redacted; fields given as ``extra`` (Powertools' keyword fields) are set after
the record is made and are not: never pass a secret there. What is redacted:

- the value of a field whose name says it is secret (`SECRET_NAMES`: push tokens, webhook
  credentials, API keys, authorization headers, passwords), wherever it is written: a JSON or
  Python dict (``"token": "..."``, ``'Authorization': b'...'``), JSON inside a JSON string at any
  depth of escaping (a push config stored as an item's JSON, in botocore's bytes repr of the
  request body), DynamoDB's typed values (``"token": {"S": "..."}``), keyword reprs
  (``token='...'``), headers (``x-api-key: ...``) and query strings (``?api_key=...``);
- anything shaped like a JWT (``eyJ...``.``eyJ...``.``...``): bearer tokens, push notification
  signatures;
- in a record whose message is a dict or list (Powertools' ``log_event``), the values of secret
  fields and every string, structurally, on a copy: the event the handler gets is untouched.

Each value becomes ``[REDACTED]``; the rest of the line (which field, which request) stays.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[REDACTED]"

# Field names whose values are credentials (compared without case; - and _ alike).
SECRET_NAMES = (
    "token",
    "credentials",
    "authorization",
    "authorizationToken",
    "x-api-key",
    "api-key",
    "apikey",
    "key",
    "x-a2a-notification-token",
    "x-amz-security-token",
    "access-token",
    "refresh-token",
    "id-token",
    "client-secret",
    "secret",
    "password",
    "cookie",
    "set-cookie",
    "signature",
    "sig",
    # Secrets Manager's answer (the worker's secrets, read at cold start).
    "SecretString",
    "SecretBinary",
)
_NAMES = {name.lower().replace("_", "-") for name in SECRET_NAMES}


class _Patterns:
    """The expressions, compiled on the first record redacted, not at a cold start's import."""

    def __init__(self) -> None:
        name = "|".join(re.escape(name).replace(r"\-", "[-_]?") for name in SECRET_NAMES)
        flags = re.IGNORECASE
        # A quoted name, then a quoted value (any escaping depth; DynamoDB's {"S": ...} around it).
        self.quoted = re.compile(
            rf"""(?P<kq>\\*["'])(?P<key>{name})(?P=kq)\s*:\s*(?P<typed>\{{\s*\\*["'][SNB]\\*["']\s*:\s*)?b?"""
            rf"""(?P<vq>\\*["'])(?P<value>(?:(?!(?P=vq)).)*?)(?P=vq)""",
            flags | re.DOTALL,
        )
        # name=value in a repr (token='...'), a header line (x-api-key: ...), a query (?key=...).
        self.keyword = re.compile(rf"""\b(?P<key>{name})=(?P<q>['"])(?P<value>.*?)(?P=q)""", flags)
        self.header = re.compile(rf"""(?m)^(?P<key>{name}):[ \t]*(?P<value>\S.*)$""", flags)
        self.query = re.compile(rf"""(?P<lead>[?&;])(?P<key>{name})=(?P<value>[^&#\s"']*)""", flags)
        self.jwt = re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
        # A header value's scheme stays readable: "Bearer [REDACTED]".
        self.scheme = re.compile(r"^(?P<scheme>Bearer|Basic|Digest|ApiKey|AWS4-HMAC-SHA256)\s+", flags)


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns()


def redact_text(text: str) -> str:
    """``text`` with every secret value it shows replaced (see the module doc)."""
    patterns = _patterns()
    text = patterns.quoted.sub(_quoted, text)
    text = patterns.keyword.sub(lambda m: f"{m['key']}={m['q']}{REDACTED}{m['q']}", text)
    text = patterns.header.sub(lambda m: f"{m['key']}: {_keep_scheme(m['value'])}", text)
    text = patterns.query.sub(lambda m: f"{m['lead']}{m['key']}={REDACTED}", text)
    return patterns.jwt.sub(REDACTED, text)


def redact(value: Any) -> Any:
    """A copy of ``value`` (dicts, lists, strings, bytes, at any depth) with its secrets replaced."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, bytes | bytearray):
        return redact_text(value.decode("utf-8", "backslashreplace"))
    if isinstance(value, Mapping):
        return {k: REDACTED if _secret_value(k, v) else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(item) for item in value]
    if isinstance(value, tuple):
        return tuple(redact(item) for item in value)
    return value


def install() -> None:
    """Redact every log record this process makes from now on (idempotent)."""
    current = logging.getLogRecordFactory()
    if getattr(current, "redacting", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = current(*args, **kwargs)
        redact_record(record)
        return record

    factory.redacting = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def redact_record(record: logging.LogRecord) -> None:
    """Redact ``record``'s message and arguments in place (formatters still see their types)."""
    record.msg = redact(record.msg) if not isinstance(record.msg, str) else redact_text(record.msg)
    if isinstance(record.args, Mapping):
        record.args = {key: _argument(value) for key, value in record.args.items()}
    elif record.args:
        record.args = tuple(_argument(arg) for arg in record.args)


def _argument(value: Any) -> Any:
    """A %-argument redacted: numbers as they are (``%d`` still formats them), text redacted,
    anything else redacted as the text ``%s`` would show, kept as it is when that shows no secret."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, bytes):  # a body botocore logs with %r: still bytes, still b'...'
        text = value.decode("utf-8", "surrogateescape")
        redacted = redact_text(text)
        return value if redacted == text else redacted.encode("utf-8", "surrogateescape")
    shown = str(value)
    redacted = redact_text(shown)
    return value if redacted == shown else redacted


def _quoted(match: re.Match[str]) -> str:
    """The name and what stands before the value as they are; the value redacted."""
    before = match.group(0)[: match.start("vq") - match.start(0)]
    value = _keep_scheme(match["value"]) if match["value"] else ""
    return f"{before}{match['vq']}{value}{match['vq']}"


def _keep_scheme(value: str) -> str:
    scheme = _patterns().scheme.match(value)
    return f"{scheme['scheme']} {REDACTED}" if scheme else REDACTED


def _secret_value(name: object, value: object) -> bool:
    """Whether ``value`` is a secret by its field's name (a text value: a "Key" holding an
    object, as DynamoDB's requests have, is walked instead)."""
    named = isinstance(name, str) and name.lower().replace("_", "-") in _NAMES
    return named and isinstance(value, str | bytes) and bool(value)
