"""The task log table and the bucket for bodies too large for a DynamoDB item."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from a2a_core.aws.resources import TABLE, TableSpec

# The key and index attribute types `a2a_core.aws.resources.create_table` declares.
_STRING, _NUMBER = dynamodb.AttributeType.STRING, dynamodb.AttributeType.NUMBER
LARGE_BODY_PREFIX = "tasks/"

# BatchGetItem: a task's older messages are read from exactly the commits that hold them.
_READ_ITEMS = ("dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query")
_WRITE_ITEMS = ("dynamodb:PutItem", "dynamodb:UpdateItem")
_READ_BODIES = ("s3:GetObject",)
_WRITE_BODIES = ("s3:PutObject", "s3:DeleteObject")


class TaskStorage(Construct):
    def __init__(self, scope: Construct, id: str, *, retention_days: int, spec: TableSpec = TABLE) -> None:
        super().__init__(scope, id)
        self.spec = spec
        # Retained on stack deletion: the table holds every task's history.
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=dynamodb.Attribute(name=spec.partition_key, type=_STRING),
            sort_key=dynamodb.Attribute(name=spec.sort_key, type=_STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            stream=dynamodb.StreamViewType[spec.stream_view_type],
            time_to_live_attribute=spec.ttl_attribute,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            removal_policy=RemovalPolicy.RETAIN,
        )
        # An existing table gains at most one index per deploy (DynamoDB creates one at a time):
        # add them one release apart.
        for name, (partition, sort, projected) in spec.indexes.items():
            self.table.add_global_secondary_index(
                index_name=name,
                partition_key=dynamodb.Attribute(name=partition, type=_STRING),
                sort_key=dynamodb.Attribute(name=sort, type=_NUMBER),
                projection_type=dynamodb.ProjectionType.INCLUDE,
                non_key_attributes=projected,
            )
        self.bucket = s3.Bucket(
            self,
            "Parts",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            minimum_tls_version=1.2,
            lifecycle_rules=[
                # TTL deletes a task's items after the retention; its offloaded bodies follow a
                # day later (TTL deletion may lag), so no item ever points at a missing body.
                s3.LifecycleRule(
                    id="expire-task-bodies",
                    prefix=LARGE_BODY_PREFIX,
                    expiration=Duration.days(retention_days + 1),
                    abort_incomplete_multipart_upload_after=Duration.days(1),
                )
            ],
            removal_policy=RemovalPolicy.RETAIN,
        )

    @property
    def index_arns(self) -> list[str]:
        """The ARNs of the table's indexes ListTasks queries."""
        return [f"{self.table.table_arn}/index/{name}" for name in self.spec.indexes]

    def grant_task_log(
        self, function: iam.IGrantable, *, write: bool, delete: bool = False, owner_index: bool = False
    ) -> None:
        """Let ``function`` (or a role: the long-turn worker's) read (and ``write``, ``delete``)
        the table's items and the large bodies, and query the listing indexes (``owner_index``,
        ListTasks); nothing else of the table or the bucket."""
        table_actions = [
            *_READ_ITEMS,
            *(_WRITE_ITEMS if write else ()),
            *(["dynamodb:DeleteItem"] if delete else []),
        ]
        function.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(actions=table_actions, resources=[self.table.table_arn])
        )
        if owner_index:
            function.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(actions=["dynamodb:Query"], resources=self.index_arns)
            )
        function.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=[*_READ_BODIES, *(_WRITE_BODIES if write else ())],
                resources=[self.bucket.arn_for_objects(f"{LARGE_BODY_PREFIX}*")],
            )
        )
