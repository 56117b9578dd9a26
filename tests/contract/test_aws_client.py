"""The AWS client contract: every operation the adapters call (on DynamoDB, SQS and KMS), with the
kind of parameters they pass, answers alike on the lean client (`a2a_core.aws.json_client`) and
on botocore, both on moto's real server. A new operation in an adapter fails
`test_every_operation_the_adapters_call_is_in_this_suite` until it has a case here.

S3 is not in it: its adapter (`a2a_core.aws.blobs`) always gets a botocore client (the lean one
speaks AWS's JSON protocol only; docs/architecture.md, "The AWS clients").
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore import xform_name
from botocore.exceptions import ClientError
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key

from a2a_core.aws.calls import error_response
from a2a_core.aws.clients import Sdk, build_clients, kms_client
from a2a_core.aws.errors import AwsServiceError
from a2a_core.aws.json_client import AwsJsonClient
from a2a_core.aws.resources import TABLE, ResourceNames
from a2a_core.emulator.moto_server import EmulatedAws

AWS = Path(__file__).resolve().parents[2] / "src" / "a2a_core" / "aws"
# Where resources are created (the stack's and the emulator's setup), not what an adapter calls.
SETUP = {"resources.py"}
COVERED = {
    "dynamodb": {"put_item", "get_item", "query", "batch_get_item", "update_item", "delete_item"},
    "sqs": {"send_message", "get_queue_url", "change_message_visibility", "delete_message"},
    "kms": {"sign", "get_public_key"},
}


@pytest.fixture(params=["lean", "botocore"])
def sdk(request: pytest.FixtureRequest) -> Sdk:
    sdk: Sdk = request.param
    return sdk


@pytest.fixture
def dynamodb(sdk: Sdk, local_aws: EmulatedAws) -> Any:
    client = build_clients(
        local_aws.region, local_aws.endpoint_url, credentials=local_aws.credentials, sdk=sdk
    )
    assert isinstance(client.dynamodb, AwsJsonClient) is (sdk == "lean")
    return client.dynamodb


@pytest.fixture
def sqs(sdk: Sdk, local_aws: EmulatedAws) -> Any:
    client = build_clients(
        local_aws.region, local_aws.endpoint_url, credentials=local_aws.credentials, sdk=sdk
    )
    assert isinstance(client.sqs, AwsJsonClient) is (sdk == "lean")
    return client.sqs


def _code(error: BaseException) -> str:
    response = error_response(error)
    assert response is not None, error
    return str(response["Error"]["Code"])


def _failure(call: Any, **params: Any) -> BaseException:
    try:
        call(**params)
    except (AwsServiceError, ClientError) as error:  # the lean client's, botocore's
        return error
    raise AssertionError(f"{call} succeeded")


KEY = {"pk": {"S": "TASK#c1"}, "sk": {"S": "EVT#0000000001"}}
ITEM = {
    **KEY,
    "body": {"S": '{"events": []}'},
    "blob": {"B": b"\x00\xffbinary"},
    "first_seq": {"N": "1"},
    "notify": {"BOOL": False},
    "tags": {"L": [{"S": "x"}, {"M": {"n": {"N": "12.5"}}}]},
    "gone": {"NULL": True},
}


def test_put_item_writes_once_under_a_condition(dynamodb: Any, aws_resources: ResourceNames) -> None:
    put = {"TableName": aws_resources.table, "Item": ITEM, "ConditionExpression": "attribute_not_exists(pk)"}
    assert "Attributes" not in dynamodb.put_item(**put)
    lost = _failure(dynamodb.put_item, **put, ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert _code(lost) == "ConditionalCheckFailedException"
    assert error_response(lost)["Item"] == ITEM  # type: ignore[index]


def test_get_item_reads_every_attribute_type_back(dynamodb: Any, aws_resources: ResourceNames) -> None:
    table = aws_resources.table
    dynamodb.put_item(TableName=table, Item=ITEM)
    assert dynamodb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"] == ITEM
    missing = {"pk": {"S": "TASK#none"}, "sk": {"S": "META"}}
    assert "Item" not in dynamodb.get_item(TableName=table, Key=missing, ConsistentRead=True)
    bad = _failure(dynamodb.get_item, TableName="no-such-table", Key=KEY)
    assert _code(bad) == "ResourceNotFoundException"


def _commits(dynamodb: Any, table: str, count: int) -> None:
    for seq in range(1, count + 1):
        item = {"pk": {"S": "TASK#q"}, "sk": {"S": f"EVT#{seq:010d}"}, "first_seq": {"N": str(seq)}}
        dynamodb.put_item(TableName=table, Item=item)
    dynamodb.put_item(TableName=table, Item={"pk": {"S": "TASK#q"}, "sk": {"S": "PUSH#c1"}})


def test_query_pages_backwards_counts_and_projects(dynamodb: Any, aws_resources: ResourceNames) -> None:
    table = aws_resources.table
    _commits(dynamodb, table, 3)
    log = {
        "TableName": table,
        "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :evt)",
        "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
        "ExpressionAttributeValues": {":pk": {"S": "TASK#q"}, ":evt": {"S": "EVT#"}},
        "ConsistentRead": True,
    }
    first = dynamodb.query(**log, ScanIndexForward=False, Limit=2)
    assert [i["first_seq"]["N"] for i in first["Items"]] == ["3", "2"]
    rest = dynamodb.query(**log, ScanIndexForward=False, ExclusiveStartKey=first["LastEvaluatedKey"])
    assert [i["first_seq"]["N"] for i in rest["Items"]] == ["1"]
    assert "LastEvaluatedKey" not in rest
    push = {**log, "ExpressionAttributeValues": {":pk": {"S": "TASK#q"}, ":evt": {"S": "PUSH#"}}}
    assert dynamodb.query(**push, Select="COUNT", Limit=1)["Count"] == 1
    projected = dynamodb.query(**log, ProjectionExpression="#sk", Limit=1)["Items"]
    assert projected == [{"sk": {"S": "EVT#0000000001"}}]


def test_query_reads_an_index_newest_first(dynamodb: Any, aws_resources: ResourceNames) -> None:
    table = aws_resources.table
    for created in (1, 3, 2):
        item = {"pk": {"S": f"TASK#i{created}"}, "sk": {"S": "EVT#0000000001"}}
        item |= {TABLE.owner_key: {"S": "alice#ctx"}, TABLE.owner_sort_key: {"N": str(created)}}
        dynamodb.put_item(TableName=table, Item=item)
    answer = dynamodb.query(
        TableName=table,
        IndexName=TABLE.owner_index,
        KeyConditionExpression="#o = :o",
        ExpressionAttributeNames={"#o": TABLE.owner_key},
        ExpressionAttributeValues={":o": {"S": "alice#ctx"}},
        ScanIndexForward=False,
        Limit=2,
    )
    assert [i["pk"]["S"] for i in answer["Items"]] == ["TASK#i3", "TASK#i2"]
    assert "LastEvaluatedKey" in answer


def test_batch_get_item_reads_what_exists(dynamodb: Any, aws_resources: ResourceNames) -> None:
    table = aws_resources.table
    _commits(dynamodb, table, 2)
    keys = [{"pk": {"S": "TASK#q"}, "sk": {"S": f"EVT#{seq:010d}"}} for seq in (1, 2, 9)]
    answer = dynamodb.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
    assert sorted(i["first_seq"]["N"] for i in answer["Responses"][table]) == ["1", "2"]
    assert not answer.get("UnprocessedKeys")


def test_update_item_sets_adds_and_fails_its_condition(dynamodb: Any, aws_resources: ResourceNames) -> None:
    table = aws_resources.table
    update = {
        "TableName": table,
        "Key": KEY,
        "UpdateExpression": "SET #n = if_not_exists(#n, :zero) + :one, #at = :at REMOVE #gone",
        "ConditionExpression": "attribute_not_exists(#at) OR #at < :at",
        "ExpressionAttributeNames": {"#n": "n", "#at": "at", "#gone": "gone"},
        "ReturnValues": "ALL_NEW",
    }
    values = {":zero": {"N": "0"}, ":one": {"N": "1"}}
    first = dynamodb.update_item(**update, ExpressionAttributeValues={**values, ":at": {"N": "10"}})
    assert first["Attributes"] == {**KEY, "n": {"N": "1"}, "at": {"N": "10"}}
    second = dynamodb.update_item(**update, ExpressionAttributeValues={**values, ":at": {"N": "11"}})
    assert second["Attributes"]["n"] == {"N": "2"}
    stale = _failure(dynamodb.update_item, **update, ExpressionAttributeValues={**values, ":at": {"N": "5"}})
    assert _code(stale) == "ConditionalCheckFailedException"


def test_delete_item_deletes_and_is_idempotent(dynamodb: Any, aws_resources: ResourceNames) -> None:
    table = aws_resources.table
    dynamodb.put_item(TableName=table, Item=ITEM)
    assert "Attributes" not in dynamodb.delete_item(TableName=table, Key=KEY)
    assert "Item" not in dynamodb.get_item(TableName=table, Key=KEY, ConsistentRead=True)
    dynamodb.delete_item(TableName=table, Key=KEY)  # deleting what is gone is no error


def test_sqs_sends_finds_its_queue_and_times_a_redelivery(
    sqs: Any, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    url = aws_resources.queue_url
    body = '{"task_id": "t", "text": "h\\u00e9llo"}'
    sent = sqs.send_message(QueueUrl=url, MessageBody=body)
    assert sent["MD5OfMessageBody"] == hashlib.md5(body.encode()).hexdigest()  # noqa: S324 (SQS's)
    assert sent["MessageId"]
    *_, account, name = url.rstrip("/").split("/")
    assert sqs.get_queue_url(QueueName=name, QueueOwnerAWSAccountId=account)["QueueUrl"] == url
    assert _code(_failure(sqs.get_queue_url, QueueName="no-such-queue")) in {
        "AWS.SimpleQueueService.NonExistentQueue",
        "QueueDoesNotExist",
    }
    (message,) = local_aws.clients.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]
    assert message["Body"] == body
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0)
    (again,) = local_aws.clients.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]
    assert again["MessageId"] == message["MessageId"]
    # The long-turn worker deletes the message it held once its turn is done.
    sqs.delete_message(QueueUrl=url, ReceiptHandle=again["ReceiptHandle"])
    gone = local_aws.clients.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)
    assert gone.get("Messages", []) == []


def test_the_two_clients_name_a_missing_queue_alike(sqs: Any, local_aws: EmulatedAws) -> None:
    other = build_clients(local_aws.region, local_aws.endpoint_url, credentials=local_aws.credentials)
    ours = _code(_failure(sqs.get_queue_url, QueueName="no-such-queue"))
    assert ours == _code(_failure(other.sqs.get_queue_url, QueueName="no-such-queue"))


def test_kms_signs_raw_and_digest_messages_and_gives_its_public_key(sdk: Sdk, local_aws: EmulatedAws) -> None:
    kms = kms_client(local_aws.region, local_aws.endpoint_url, sdk=sdk)
    assert isinstance(kms, AwsJsonClient) is (sdk == "lean")
    key_id = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    public = load_der_public_key(kms.get_public_key(KeyId=key_id)["PublicKey"])
    assert isinstance(public, ec.EllipticCurvePublicKey)
    raw = kms.sign(KeyId=key_id, Message=b"payload", MessageType="RAW", SigningAlgorithm="ECDSA_SHA_256")
    public.verify(raw["Signature"], b"payload", ec.ECDSA(hashes.SHA256()))
    # A DIGEST is taken and answered alike; moto signs it as a raw message (it does not implement
    # DIGEST), so what it signed is checked as that.
    digest = hashlib.sha256(b"a long payload").digest()
    signed = kms.sign(KeyId=key_id, Message=digest, MessageType="DIGEST", SigningAlgorithm="ECDSA_SHA_256")
    assert isinstance(signed["Signature"], bytes)
    public.verify(signed["Signature"], digest, ec.ECDSA(hashes.SHA256()))
    assert _code(_failure(kms.get_public_key, KeyId="no-such-key")) == "NotFoundException"


def _called_operations() -> dict[str, set[str]]:
    """The DynamoDB, SQS and KMS operations named in the adapters' code (``client.put_item``)."""
    session = botocore.session.get_session()
    operations = {
        service: {xform_name(name) for name in session.get_service_model(service).operation_names}
        for service in COVERED
    }
    called: dict[str, set[str]] = {service: set() for service in COVERED}
    for path in AWS.rglob("*.py"):
        if path.name in SETUP:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                for service, names in operations.items():
                    if node.attr in names:
                        called[service].add(node.attr)
    return called


def test_every_operation_the_adapters_call_is_in_this_suite() -> None:
    called = _called_operations()
    assert called["dynamodb"] >= {"put_item", "query"}  # the scan finds what it looks for
    missing = {
        service: names - COVERED[service] for service, names in called.items() if names - COVERED[service]
    }
    assert missing == {}, f"add a case for these operations to {Path(__file__).name}"
