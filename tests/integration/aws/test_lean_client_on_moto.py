"""The lean client and botocore, side by side on moto: the same calls get the same answers (but
for their HTTP metadata) and fail with the same error codes, for every call the adapters make."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key

from a2a_core.aws.clients import build_clients, kms_client
from a2a_core.aws.errors import AwsServiceError
from a2a_core.aws.json_client import AwsJsonClient
from a2a_core.aws.resources import ResourceNames
from a2a_core.emulator.moto_server import EmulatedAws


def without_metadata(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key != "ResponseMetadata"}


def both(local_aws: EmulatedAws, service: str) -> tuple[Any, Any]:
    lean = getattr(build_clients(local_aws.region, local_aws.endpoint_url), service)
    assert isinstance(lean, AwsJsonClient)
    return lean, getattr(local_aws.clients, service)  # the emulator's are botocore's


def test_dynamodb_answers_are_botocores(local_aws: EmulatedAws, aws_resources: ResourceNames) -> None:
    lean, botocore = both(local_aws, "dynamodb")
    table = aws_resources.table
    key = {"pk": {"S": "TASK#1"}, "sk": {"S": "EVT#0000000001"}}
    item = {
        **key,
        "data": {"B": b"\x00\xffbinary"},
        "n": {"N": "12.5"},
        "m": {"M": {"l": {"L": [{"S": "x"}]}}},
    }
    assert without_metadata(lean.put_item(TableName=table, Item=item)) == {}
    for client in (lean, botocore):
        assert client.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"] == item
    query = {
        "TableName": table,
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": "TASK#1"}},
        "ConsistentRead": True,
    }
    assert without_metadata(lean.query(**query)) == without_metadata(botocore.query(**query))
    batch = {"RequestItems": {table: {"Keys": [key], "ConsistentRead": True}}}
    assert without_metadata(lean.batch_get_item(**batch)) == without_metadata(
        botocore.batch_get_item(**batch)
    )
    update = {
        "TableName": table,
        "Key": key,
        "UpdateExpression": "SET n = n + :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}},
        "ReturnValues": "UPDATED_NEW",
    }
    assert lean.update_item(**update)["Attributes"] == {"n": {"N": "13.5"}}
    assert botocore.update_item(**update)["Attributes"] == {"n": {"N": "14.5"}}


def test_a_failed_condition_fails_alike(local_aws: EmulatedAws, aws_resources: ResourceNames) -> None:
    lean, botocore = both(local_aws, "dynamodb")
    item = {"pk": {"S": "TASK#2"}, "sk": {"S": "EVT#0000000001"}, "write_id": {"S": "first"}}
    lean.put_item(TableName=aws_resources.table, Item=item)
    put = {
        "TableName": aws_resources.table,
        "Item": {**item, "write_id": {"S": "second"}},
        "ConditionExpression": "attribute_not_exists(pk)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    with pytest.raises(AwsServiceError) as ours:
        lean.put_item(**put)
    with pytest.raises(botocore.exceptions.ConditionalCheckFailedException) as theirs:
        botocore.put_item(**put)
    assert ours.value.code == theirs.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert ours.value.response["Item"] == theirs.value.response["Item"] == item


def test_sqs_answers_and_errors_are_botocores(local_aws: EmulatedAws, aws_resources: ResourceNames) -> None:
    lean, botocore = both(local_aws, "sqs")
    url = aws_resources.queue_url
    sent = lean.send_message(QueueUrl=url, MessageBody='{"task_id": "t"}')
    assert sent["MD5OfMessageBody"] == hashlib.md5(b'{"task_id": "t"}').hexdigest()  # noqa: S324 (SQS's)
    (message,) = botocore.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]
    changed = lean.change_message_visibility(
        QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
    )
    assert without_metadata(changed) == {}
    name = url.rsplit("/", 1)[1]
    assert (
        lean.get_queue_url(QueueName=name)["QueueUrl"] == botocore.get_queue_url(QueueName=name)["QueueUrl"]
    )
    with pytest.raises(AwsServiceError) as ours:
        lean.get_queue_url(QueueName="no-such-queue")
    with pytest.raises(botocore.exceptions.QueueDoesNotExist) as theirs:
        botocore.get_queue_url(QueueName="no-such-queue")
    assert ours.value.response["Error"]["Code"] == theirs.value.response["Error"]["Code"]


def test_kms_signs_as_botocore_does(local_aws: EmulatedAws) -> None:
    lean = kms_client(local_aws.region, local_aws.endpoint_url)
    assert isinstance(lean, AwsJsonClient)
    key_id = lean.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    public = load_der_public_key(lean.get_public_key(KeyId=key_id)["PublicKey"])
    assert isinstance(public, ec.EllipticCurvePublicKey)
    signed = lean.sign(KeyId=key_id, Message=b"payload", MessageType="RAW", SigningAlgorithm="ECDSA_SHA_256")
    public.verify(signed["Signature"], b"payload", ec.ECDSA(hashes.SHA256()))
