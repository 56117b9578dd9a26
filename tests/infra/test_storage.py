"""The table, the large-body bucket and the push signing key."""

from __future__ import annotations

from typing import Any, cast

from aws_cdk.assertions import Match, Template

from a2a_core.aws.resources import TABLE, create_table
from a2a_core.cdk.testing import logical_id, properties


class RecordingClient:
    """Stands in for a boto3 client: records each call's keyword arguments."""

    def __init__(self) -> None:
        self.calls: dict[str, dict[str, Any]] = {}

    def __getattr__(self, name: str) -> Any:
        def call(**kwargs: Any) -> dict[str, Any]:
            self.calls[name] = kwargs
            return {}

        return call


def test_table_matches_what_the_local_emulation_creates(default: Template) -> None:
    client = RecordingClient()
    create_table(cast(Any, client), "tasks")
    local = client.calls["create_table"]
    ttl = client.calls["update_time_to_live"]["TimeToLiveSpecification"]

    default.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "BillingMode": local["BillingMode"],
            "KeySchema": local["KeySchema"],
            "AttributeDefinitions": Match.array_equals(local["AttributeDefinitions"]),
            "GlobalSecondaryIndexes": local["GlobalSecondaryIndexes"],
            "StreamSpecification": {"StreamViewType": local["StreamSpecification"]["StreamViewType"]},
            "TimeToLiveSpecification": {"AttributeName": ttl["AttributeName"], "Enabled": True},
        },
    )


def test_table_is_on_demand_recoverable_encrypted_and_retained(default: Template) -> None:
    default.has_resource(
        "AWS::DynamoDB::Table",
        {
            "Properties": Match.object_like(
                {
                    "BillingMode": "PAY_PER_REQUEST",
                    "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
                    "SSESpecification": {"SSEEnabled": True},
                    "StreamSpecification": {"StreamViewType": "NEW_IMAGE"},
                    "TimeToLiveSpecification": {"AttributeName": TABLE.ttl_attribute, "Enabled": True},
                }
            ),
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
        },
    )


def test_the_indexes_are_list_tasks_two_projecting_what_it_filters_on(default: Template) -> None:
    table = properties(default, "AWS::DynamoDB::Table", "/Storage/Table/Resource")
    # The owner index (its partitions now an owner's contexts) and the listing index, added by
    # one deploy: an existing table gains at most one index per update.
    owner, listing = table["GlobalSecondaryIndexes"]
    assert owner == {
        "IndexName": "by-owner",
        "KeySchema": [
            {"AttributeName": "owner", "KeyType": "HASH"},
            {"AttributeName": "created_at", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["context_id", "expires_at"]},
    }
    assert listing == {
        "IndexName": "by-update",
        "KeySchema": [
            {"AttributeName": "lo", "KeyType": "HASH"},
            {"AttributeName": "la", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["state", "expires_at"]},
    }
    assert {d["AttributeName"]: d["AttributeType"] for d in table["AttributeDefinitions"]} == {
        "pk": "S",
        "sk": "S",
        "owner": "S",
        "created_at": "N",
        "lo": "S",
        "la": "N",
    }


def test_bucket_is_private_encrypted_and_expires_task_bodies_a_day_after_their_items(
    default: Template, full: Template
) -> None:
    for template, retention_days in ((default, 30), (full, 7)):
        template.has_resource(
            "AWS::S3::Bucket",
            {
                "Properties": Match.object_like(
                    {
                        "BucketEncryption": {
                            "ServerSideEncryptionConfiguration": [
                                {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
                            ]
                        },
                        "PublicAccessBlockConfiguration": {
                            "BlockPublicAcls": True,
                            "BlockPublicPolicy": True,
                            "IgnorePublicAcls": True,
                            "RestrictPublicBuckets": True,
                        },
                        "OwnershipControls": {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]},
                        "LifecycleConfiguration": {
                            "Rules": [
                                {
                                    "Id": "expire-task-bodies",
                                    "Prefix": "tasks/",
                                    "ExpirationInDays": retention_days + 1,
                                    "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1},
                                    "Status": "Enabled",
                                }
                            ]
                        },
                    }
                ),
                "DeletionPolicy": "Retain",
            },
        )


def test_bucket_refuses_plain_http_and_old_tls(default: Template) -> None:
    bucket = logical_id(default, "AWS::S3::Bucket", "/Storage/Parts/Resource")
    default.has_resource_properties(
        "AWS::S3::BucketPolicy",
        {
            "Bucket": {"Ref": bucket},
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {
                                "Effect": "Deny",
                                "Action": "s3:*",
                                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                            }
                        ),
                        Match.object_like(
                            {
                                "Effect": "Deny",
                                "Action": "s3:*",
                                "Condition": {"NumericLessThan": {"s3:TlsVersion": 1.2}},
                            }
                        ),
                    ]
                )
            },
        },
    )


def test_push_signing_key_is_an_asymmetric_p256_signing_key(default: Template) -> None:
    default.has_resource(
        "AWS::KMS::Key",
        {
            "Properties": Match.object_like({"KeySpec": "ECC_NIST_P256", "KeyUsage": "SIGN_VERIFY"}),
            "DeletionPolicy": "Retain",
        },
    )
