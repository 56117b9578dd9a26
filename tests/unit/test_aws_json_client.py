"""The lean AWS client (`a2a_core.aws.json_client`) signs as botocore does, retries what botocore's
standard mode retries, and answers and fails in botocore's shapes; its endpoints, credentials and
TLS roots are those botocore would use."""

from __future__ import annotations

import base64
import datetime
import json
import re
import socket
import threading
import zlib
from pathlib import Path
from typing import Any

import botocore.auth
import certifi
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotocoreCredentials

from a2a_core.aws import json_client
from a2a_core.aws.calls import AwsCalls, KeyTakenError
from a2a_core.aws.clients import lean_endpoint
from a2a_core.aws.credentials import CredentialChain
from a2a_core.aws.errors import AwsConnectionError, AwsServiceError
from a2a_core.aws.http_pool import AMAZON_ROOTS, HttpPool, HttpResponse, tls_context
from a2a_core.aws.json_client import AwsJsonClient
from a2a_core.aws.sigv4 import Credentials, sign
from a2a_core.core.errors import StoreUnavailableError

KEYS = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")


@pytest.mark.parametrize("token", [None, "FwoGZXIvYXdzEBYaDH-session-token"])
@pytest.mark.parametrize("host", ["dynamodb.eu-west-1.amazonaws.com", "127.0.0.1:5000"])
def test_the_signature_is_botocores_for_the_same_request_and_time(
    monkeypatch: pytest.MonkeyPatch, token: str | None, host: str
) -> None:
    body = b'{"TableName":"tasks","Key":{"pk":{"S":"TASK#1"}}}'
    headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.GetItem"}
    ours = sign(
        KEYS._replace(token=token),
        region="eu-west-1",
        service="dynamodb",
        host=host,
        headers=headers,
        body=body,
        amz_date="20261126T101500Z",
    )
    request = AWSRequest("POST", f"http://{host}/", data=body, headers=headers)
    auth = SigV4Auth(BotocoreCredentials(KEYS.access_key, KEYS.secret_key, token), "dynamodb", "eu-west-1")
    monkeypatch.setattr(
        botocore.auth, "get_current_datetime", lambda: datetime.datetime(2026, 11, 26, 10, 15)
    )
    auth.add_auth(request)
    assert ours["Authorization"] == request.headers["Authorization"]
    assert "SignedHeaders=content-type;host;x-amz-date;" in ours["Authorization"]


class Script:
    """A transport that answers each attempt from a script: (status, body, headers) or an error."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.sent: list[dict[str, str]] = []

    def __call__(self, method: str, headers: dict[str, str], body: bytes) -> HttpResponse:
        self.sent.append(headers)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        status, document, extra = (*answer, {})[:3]
        raw = document if isinstance(document, bytes) else json.dumps(document).encode()
        return HttpResponse(status, {"x-amzn-requestid": "r-1", **extra}, raw)


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Retries without waiting; the waits the client asked for."""
    waits: list[float] = []
    monkeypatch.setattr(json_client, "_sleep", waits.append)
    return waits


def client(service: str, script: Script) -> AwsJsonClient:
    made = AwsJsonClient(
        service, "eu-west-1", "https://example.invalid", credentials=CredentialChain(KEYS[:2])
    )
    made.transport = script
    return made


def test_an_operation_is_a_signed_json_post_naming_it(no_backoff: list[float]) -> None:
    script = Script((200, {"Item": {"pk": {"S": "TASK#1"}}}))
    answer = client("dynamodb", script).get_item(TableName="tasks", Key={"pk": {"S": "TASK#1"}})
    assert answer["Item"] == {"pk": {"S": "TASK#1"}}
    assert answer["ResponseMetadata"] == {
        "RequestId": "r-1",
        "HTTPStatusCode": 200,
        "HTTPHeaders": {"x-amzn-requestid": "r-1"},
        "RetryAttempts": 0,
    }
    (headers,) = script.sent
    assert headers["X-Amz-Target"] == "DynamoDB_20120810.GetItem"
    assert headers["Content-Type"] == "application/x-amz-json-1.0"
    assert headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-west-1/dynamodb/aws4_request" in headers["Authorization"]


@pytest.mark.parametrize(
    ("first", "throttled"),
    [
        ((400, {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"}), True),
        ((400, {"__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException"}), True),
        ((429, b""), True),
        ((500, {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError"}), False),
        ((503, b"<html>unavailable</html>"), False),
        (ConnectionResetError("reset by peer"), False),
        (TimeoutError("timed out"), False),
        ((200, {"Item": {}}, {"x-amz-crc32": "1"}), False),
    ],
)
def test_throttling_and_transient_failures_are_retried(
    no_backoff: list[float], first: Any, throttled: bool
) -> None:
    script = Script(first, (200, {"Count": 0, "Items": []}))
    answer = client("dynamodb", script).query(TableName="tasks")
    assert answer["Items"] == []
    assert answer["ResponseMetadata"]["RetryAttempts"] == 1
    (wait,) = no_backoff
    assert 0 <= wait <= (1.0 if throttled else 0.025)  # botocore's scales: 1 s, 25 ms for DynamoDB


def test_a_retry_waits_at_least_what_the_service_asks(no_backoff: list[float]) -> None:
    busy = (400, {"__type": "ThrottlingException"}, {"x-amz-retry-after": "1500"})
    client("sqs", Script(busy, (200, {}))).send_message(QueueUrl="q", MessageBody="b")
    assert 1.5 <= no_backoff[0] <= 2.5


def test_after_four_attempts_the_last_error_is_raised(no_backoff: list[float]) -> None:
    busy = (500, {"__type": "InternalServerError", "message": "try again"})
    with pytest.raises(AwsServiceError) as raised:
        client("dynamodb", Script(busy, busy, busy, busy)).put_item(TableName="tasks", Item={})
    assert raised.value.code == "InternalServerError"
    assert raised.value.response["ResponseMetadata"]["RetryAttempts"] == 3
    assert len(no_backoff) == 3
    down = ConnectionRefusedError("refused")
    unreachable = client("dynamodb", Script(down, down, down, down))
    with pytest.raises(AwsConnectionError, match="PutItem"):
        unreachable.put_item(TableName="tasks", Item={})


def test_a_failed_condition_is_not_retried_and_carries_the_item(no_backoff: list[float]) -> None:
    held = {"pk": {"S": "TASK#1"}, "write_id": {"S": "theirs"}}
    refused = (
        400,
        {
            "__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
            "message": "The conditional request failed",
            "Item": held,
        },
    )
    dynamodb = client("dynamodb", Script(refused))
    with pytest.raises(AwsServiceError) as raised:
        dynamodb.put_item(TableName="tasks", Item={}, ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert raised.value.response["Error"] == {
        "Code": "ConditionalCheckFailedException",
        "Message": "The conditional request failed",
    }
    assert raised.value.response["Item"] == held
    assert no_backoff == []

    import asyncio

    dynamodb.transport = Script(refused)
    with pytest.raises(KeyTakenError) as taken:  # as the adapters see it
        asyncio.run(AwsCalls(StoreUnavailableError)(dynamodb.put_item, TableName="tasks", Item={}))
    assert taken.value.existing == held
    dynamodb.transport = Script((400, {"__type": "ValidationException", "message": "bad"}))
    with pytest.raises(StoreUnavailableError):
        asyncio.run(AwsCalls(StoreUnavailableError)(dynamodb.get_item, TableName="tasks", Key={}))


def test_sqs_errors_carry_the_query_protocols_code_as_botocore_reads_it() -> None:
    missing = (
        400,
        {"__type": "com.amazonaws.sqs#QueueDoesNotExist", "message": "The specified queue does not exist."},
        {"x-amzn-query-error": "AWS.SimpleQueueService.NonExistentQueue;Sender"},
    )
    with pytest.raises(AwsServiceError) as raised:
        client("sqs", Script(missing)).get_queue_url(QueueName="nope")
    assert raised.value.response["Error"] == {
        "Code": "AWS.SimpleQueueService.NonExistentQueue",
        "Message": "The specified queue does not exist.",
        "QueryErrorCode": "QueueDoesNotExist",
        "Type": "Sender",
    }


def test_blobs_go_out_as_base64_and_come_back_as_bytes() -> None:
    chunk = b"\x00\xffcontext"
    stored = {"pk": {"S": "CTX#1"}, "data": {"B": base64.b64encode(chunk).decode()}}
    nested = {"M": {"raw": {"BS": [base64.b64encode(b"a").decode()]}}}
    script = Script((200, {"Responses": {"tasks": [{**stored, "more": nested}]}}))
    dynamodb = client("dynamodb", script)
    answer = dynamodb.batch_get_item(RequestItems={"tasks": {"Keys": [{"data": {"B": chunk}}]}})
    item = answer["Responses"]["tasks"][0]
    assert item["data"] == {"B": chunk}
    assert item["more"] == {"M": {"raw": {"BS": [b"a"]}}}
    signature = b"0E\x02!\x00signature"
    kms = client("kms", Script((200, {"KeyId": "k", "Signature": base64.b64encode(signature).decode()})))
    assert kms.sign(KeyId="k", Message=b"payload", SigningAlgorithm="ECDSA_SHA_256")["Signature"] == signature
    assert kms.transport.sent[0]["X-Amz-Target"] == "TrentService.Sign"  # type: ignore[attr-defined]
    assert kms.transport.sent[0]["Content-Type"] == "application/x-amz-json-1.1"  # type: ignore[attr-defined]


def test_an_answer_whose_crc_matches_is_taken() -> None:
    body = json.dumps({"Items": [], "Count": 0}).encode()
    script = Script((200, body, {"x-amz-crc32": str(zlib.crc32(body))}))
    assert client("dynamodb", script).query(TableName="tasks")["Count"] == 0


def test_hooks_see_every_call_and_may_answer_instead(no_backoff: list[float]) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    dynamodb = client("dynamodb", Script((200, {"Items": []})))
    dynamodb.after_call.append(lambda operation, params, answer: seen.append((operation, answer)))
    dynamodb.query(TableName="tasks")
    dynamodb.before_call.append(lambda operation, params: {"Error": {"Code": "Injected", "Message": "no"}})
    with pytest.raises(AwsServiceError, match="Injected"):
        dynamodb.query(TableName="tasks")
    assert [operation for operation, _ in seen] == ["Query", "Query"]


def test_credentials_are_read_from_the_environment_on_every_request(monkeypatch: pytest.MonkeyPatch) -> None:
    script = Script((200, {}), (200, {}))
    sqs = AwsJsonClient("sqs", "eu-west-1", "https://example.invalid")
    sqs.transport = script
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDBEFORE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token-before")
    sqs.send_message(QueueUrl="q", MessageBody="1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDAFTER")  # renewed, e.g. after a SnapStart restore
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token-after")
    sqs.send_message(QueueUrl="q", MessageBody="2")
    before, after = script.sent
    assert "Credential=AKIDBEFORE/" in before["Authorization"]
    assert before["X-Amz-Security-Token"] == "token-before"
    assert "Credential=AKIDAFTER/" in after["Authorization"]
    assert after["X-Amz-Security-Token"] == "token-after"


def test_without_environment_credentials_botocores_chain_finds_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    shared = tmp_path / "credentials"
    shared.write_text("[laptop]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = secret\n")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(shared))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_PROFILE", "laptop")
    assert CredentialChain()().access_key == "AKIDPROFILE"


@pytest.mark.parametrize(
    ("region", "expected"),
    [
        ("eu-west-1", "https://dynamodb.eu-west-1.amazonaws.com"),
        ("us-gov-west-1", "https://dynamodb.us-gov-west-1.amazonaws.com"),
        ("cn-north-1", "https://dynamodb.cn-north-1.amazonaws.com.cn"),
        ("us-iso-east-1", None),  # another partition: botocore knows its endpoints
    ],
)
def test_the_lean_client_serves_the_regions_whose_endpoints_it_knows(
    region: str, expected: str | None
) -> None:
    assert lean_endpoint("dynamodb", region) == expected
    assert lean_endpoint("s3", region) is None  # not a JSON-protocol service
    assert lean_endpoint("dynamodb", region, "http://127.0.0.1:5000") == "http://127.0.0.1:5000"


@pytest.mark.parametrize("setting", ["AWS_USE_FIPS_ENDPOINT=true", "AWS_ENDPOINT_URL_DYNAMODB=http://h"])
def test_endpoint_settings_only_botocore_reads_leave_the_choice_to_botocore(
    monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    name, value = setting.split("=", 1)
    monkeypatch.setenv(name, value)
    assert lean_endpoint("dynamodb", "eu-west-1") is None


def test_the_amazon_roots_are_certifis_entries_for_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pattern = re.compile(
        r'# Label: "([^"]+)"\n.*?(-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----)', re.S
    )
    ours = dict(pattern.findall(AMAZON_ROOTS.read_text()))
    theirs = dict(pattern.findall(Path(certifi.where()).read_text()))
    assert sorted(ours) == [
        "Amazon Root CA 1",
        "Amazon Root CA 2",
        "Amazon Root CA 3",
        "Amazon Root CA 4",
        "Starfield Services Root Certificate Authority - G2",
    ]
    assert all(ours[name] == theirs[name] for name in ours)
    monkeypatch.delenv("AWS_CA_BUNDLE", raising=False)
    assert tls_context("dynamodb.eu-west-1.amazonaws.com").cert_store_stats()["x509_ca"] == 5
    assert tls_context("localhost").cert_store_stats()["x509_ca"] > 5
    bundle = tmp_path / "bundle.pem"  # AWS_CA_BUNDLE replaces them, as for botocore
    bundle.write_text(ours["Amazon Root CA 1"] + "\n")
    monkeypatch.setenv("AWS_CA_BUNDLE", str(bundle))
    assert tls_context("dynamodb.eu-west-1.amazonaws.com").cert_store_stats()["x509_ca"] == 1


def test_a_keep_alive_connection_the_server_closed_is_replaced_once() -> None:
    """The server answers the first request on a connection, then closes it without answering the
    next (an idle connection it dropped): the pool sends that request again on a new one."""
    answered: list[int] = []
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        for _ in range(2):
            connection, _ = listener.accept()
            with connection:
                connection.recv(65536)
                answered.append(1)
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}"
                )
                connection.recv(65536)  # the next request on this connection: closed unanswered

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    pool = HttpPool(f"http://127.0.0.1:{listener.getsockname()[1]}", connect_timeout=2, read_timeout=2)
    try:
        assert pool.send("POST", {"Host": pool.netloc}, b"{}").body == b"{}"
        assert pool.send("POST", {"Host": pool.netloc}, b"{}").body == b"{}"
    finally:
        pool.reset()
        listener.close()
        thread.join(5)
    assert answered == [1, 1]


def test_in_lambda_the_invocations_trace_header_goes_along_unsigned(monkeypatch: pytest.MonkeyPatch) -> None:
    trace = "Root=1-6748e0a1-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1;Lineage=1:abc:0"
    monkeypatch.setenv("_X_AMZN_TRACE_ID", trace)
    script = Script((200, {}), (200, {}))
    sqs = client("sqs", script)
    sqs.send_message(QueueUrl="q", MessageBody="outside Lambda")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "Api")
    sqs.send_message(QueueUrl="q", MessageBody="in Lambda")
    outside, inside = script.sent
    assert "X-Amzn-Trace-Id" not in outside
    assert inside["X-Amzn-Trace-Id"] == trace  # as botocore quotes it: unchanged
    assert "x-amzn-trace-id" not in inside["Authorization"]


def test_what_is_botocores_and_no_operation_is_missing() -> None:
    dynamodb = client("dynamodb", Script())
    assert not hasattr(dynamodb, "meta")  # so nothing mistakes it for a botocore client
    with pytest.raises(AttributeError, match="get_paginator"):
        dynamodb.get_paginator("query")
