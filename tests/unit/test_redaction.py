"""Log redaction: each shape a secret takes in a log line, and records that still format."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from a2a_core import redaction
from a2a_core.redaction import REDACTED, redact, redact_text

CONFIG = {
    "url": "https://hooks.example.com/a2a",
    "token": "tok-1",
    "authentication": {"credentials": "cred-1"},
}


def botocore_body(item: dict[str, object]) -> str:
    """What botocore's debug log shows of a PutItem body: JSON in JSON, in a bytes repr."""
    return repr(json.dumps({"TableName": "t", "Item": item}).encode())


@pytest.mark.parametrize(
    "text",
    [
        botocore_body({"config": {"S": json.dumps(CONFIG)}}),  # a stored push config
        botocore_body({"config": {"S": json.dumps({"config": json.dumps(CONFIG)})}}),  # deeper still
        json.dumps({"Records": [{"NewImage": {"config": {"S": json.dumps(CONFIG)}}}]}),
        repr({"headers": {"Authorization": b"Bearer tok-1", "x-api-key": "cred-1"}}),
        "PushNotificationConfig(url='https://h/', token='tok-1', authentication={'credentials': 'cred-1'})",
        '127.0.0.1:5000 - "GET /tasks?api_key=tok-1&A2A-Version=1.0&access_token=cred-1 HTTP/1.1" 200',
        "x-api-key: tok-1\nauthorization: Basic cred-1",
        '{"token": {"S": "tok-1"}, "credentials": {"S": "cred-1"}}',
    ],
)
def test_every_shape_of_a_secret_is_redacted(text: str) -> None:
    redacted = redact_text(text)
    assert "tok-1" not in redacted
    assert "cred-1" not in redacted
    assert REDACTED in redacted


def test_what_is_not_secret_stays_readable() -> None:
    text = botocore_body({"config": {"S": json.dumps(CONFIG)}, "pageToken": {"S": "next"}})
    redacted = redact_text(text)
    assert "https://hooks.example.com/a2a" in redacted
    assert "next" in redacted  # pageToken is not a token
    assert redact_text("GET /tasks?A2A-Version=1.0&pageSize=2") == "GET /tasks?A2A-Version=1.0&pageSize=2"
    assert redact_text("authorization: Bearer abc") == f"authorization: Bearer {REDACTED}"


def test_jwts_are_redacted_wherever_they_stand() -> None:
    jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLWJ5dGVz"
    assert redact_text(f"refused {jwt} at 12:00") == f"refused {REDACTED} at 12:00"


def test_an_event_is_redacted_on_a_copy() -> None:
    event = {
        "headers": {"Authorization": "Bearer tok-1", "X-Api-Key": "cred-1"},
        "Key": {"pk": {"S": "TASK#1"}},  # DynamoDB's Key holds an object: walked, not dropped
        "body": json.dumps({"pushNotificationConfig": CONFIG}),
    }
    copied = json.dumps(event)
    redacted = redact(event)
    assert json.dumps(event) == copied  # the handler's event is untouched
    assert redacted["headers"] == {"Authorization": REDACTED, "X-Api-Key": REDACTED}
    assert redacted["Key"] == event["Key"]
    assert "tok-1" not in redacted["body"]


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    factory = logging.getLogRecordFactory()
    redaction.install()
    redaction.install()  # idempotent: one wrapper
    stream = io.StringIO()
    logger = logging.getLogger("test_redaction")
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)
    logging.setLogRecordFactory(factory)


def test_installed_records_still_format_as_their_loggers_wrote_them(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = logged
    body = json.dumps({"token": "tok-1"}).encode()
    logger.debug("Response body:\n%r", body)  # botocore's: bytes stay bytes, shown b'...'
    logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/t?token=tok-1", "1.1", 200)
    logger.info("%(who)s sent %(what)s", {"who": "alice", "what": "token='tok-1'"})
    logger.info({"headers": {"authorization": "Bearer tok-1"}})  # Powertools' logged event
    lines = stream.getvalue()
    assert "tok-1" not in lines
    assert f'Response body:\nb\'{{"token": "{REDACTED}"}}\'' in lines
    assert f'127.0.0.1:5000 - "GET /t?token={REDACTED} HTTP/1.1" 200' in lines
    assert f"alice sent token='{REDACTED}'" in lines


def test_a_secrets_manager_answer_logged_keeps_its_arn_not_its_value() -> None:
    """botocore's debug log of GetSecretValue (the worker's secrets, read at cold start)."""
    assert (
        redact_text('{"ARN": "arn:x", "SecretString": "sk-123"}')
        == '{"ARN": "arn:x", "SecretString": "[REDACTED]"}'
    )
    assert "gemini" not in redact_text("{'SecretBinary': b'gemini'}")
