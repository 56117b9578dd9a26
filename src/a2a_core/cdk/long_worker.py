"""The long-turn worker on ECS Fargate: a turn longer than the Lambda worker allows runs as one
Fargate task, started for it by the worker (ECS RunTask, `a2a_core.aws.ecs_launcher`).

Nothing of it runs, or bills by the hour, while no long turn is in flight: a cluster (free), a
task definition, a log group, and, unless the deployer brings a VPC, one of public subnets with no
NAT gateway and no interface endpoints (both bill by the hour): each task gets a public IP, and
its security group takes no inbound traffic. The container is the worker's bundle on a Python base
image (`a2a_core.cdk.worker_image`: built into the cloud assembly at synth, by Docker at deploy),
running ``python -m a2a_core.functions.long_worker``, with the worker's environment and the
worker's grants on its task role, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from a2a_core.bundling.build import Bundle
from a2a_core.bundling.plan import LONG_WORKER
from a2a_core.cdk.options import LongTurnOptions
from a2a_core.cdk.storage import TaskStorage
from a2a_core.cdk.worker_image import image_asset

CONTAINER = "worker"
# The worker stops an agent this long before its Lambda's end, to record the outcome
# (`a2a_core.core.turn.worker.Worker`'s ``safety_margin``).
LAMBDA_SAFETY_MARGIN_SECONDS = 10
BASE_IMAGE = "public.ecr.aws/docker/library/python"  # Docker's official image, on ECR Public
DOCKERFILE = """\
# Made by a2a-serverless at synth: the worker's bundle on a Python base image, running long turns.
FROM {base}:{python}-slim
WORKDIR /var/task
COPY . /var/task/
ENV PYTHONPATH=/var/task PYTHONUNBUFFERED=1
USER 1000
ENTRYPOINT ["python", "-m", "{entry}"]
"""
# The launcher's settings on the worker (`a2a_core.settings.Settings`' ``long_turn_*``).
LAUNCHER_VARIABLES = (
    "A2A_LONG_TURN_CLUSTER",
    "A2A_LONG_TURN_TASK_DEFINITION",
    "A2A_LONG_TURN_SUBNETS",
    "A2A_LONG_TURN_SECURITY_GROUPS",
    "A2A_LONG_TURN_PUBLIC_IP",
    "A2A_LONG_TURN_CONTAINER",
    "A2A_LONG_TURN_CAPACITY",
)
# What the worker logs when a turn fails (at ERROR) and what a crash prints.
FAILURE_TERMS = ("ERROR", "CRITICAL", "Traceback")
METRIC_NAMESPACE = "a2a-serverless"


ENTRY_POINT = ("python", "-m", LONG_WORKER)


def dockerfile(python_version: str) -> str:
    """The long-turn worker image's Dockerfile, for the runtime's Python version."""
    return DOCKERFILE.format(base=BASE_IMAGE, python=python_version, entry=LONG_WORKER)


def lambda_turn_limit(worker_timeout: Duration) -> int:
    """The longest turn the Lambda worker runs: its timeout less its safety margin."""
    return int(worker_timeout.to_seconds()) - LAMBDA_SAFETY_MARGIN_SECONDS


class LongTurnWorker(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        options: LongTurnOptions,
        bundle: Bundle | None,
        python_version: str,
        architecture: lambda_.Architecture,
        environment: Mapping[str, str],
        log_retention: logs.RetentionDays,
    ) -> None:
        """The cluster, network, task definition and roles; `grant` gives the task role the
        worker's access, `launched_by` lets the worker start tasks."""
        super().__init__(scope, id)
        self.options = options
        self.vpc = options.vpc or self._public_vpc()
        self.subnets = self.vpc.select_subnets(**_selection(options))
        self.security_group = ec2.SecurityGroup(
            self,
            "Tasks",
            vpc=self.vpc,
            description="Long-turn worker tasks: no inbound traffic, outbound to AWS and the agents APIs",
            allow_all_outbound=True,
        )
        insights = ecs.ContainerInsights
        insights_v2 = insights.ENABLED if options.container_insights else insights.DISABLED
        self.cluster = ecs.Cluster(
            self,
            "Cluster",
            vpc=self.vpc,
            container_insights_v2=insights_v2,
            enable_fargate_capacity_providers=options.spot,
        )
        self.log_group = logs.LogGroup(self, "Logs", retention=log_retention)
        self.task_role = iam.Role(
            self,
            "TaskRole",
            assumed_by=iam.ServicePrincipal("ecs-tasks.amazonaws.com"),
            description="The long-turn worker's tasks: the worker's access (a2a-serverless)",
        )
        self.execution_role = iam.Role(
            self,
            "ExecutionRole",
            assumed_by=iam.ServicePrincipal("ecs-tasks.amazonaws.com"),
            description="Starts long-turn worker tasks: pulls the image, writes the logs (a2a-serverless)",
        )
        self.task_definition = ecs.FargateTaskDefinition(
            self,
            "Task",
            cpu=options.cpu,
            memory_limit_mib=options.memory_mb,
            ephemeral_storage_gib=options.ephemeral_storage_gib,
            runtime_platform=ecs.RuntimePlatform(
                cpu_architecture=_ecs_architecture(architecture),
                operating_system_family=ecs.OperatingSystemFamily.LINUX,
            ),
            task_role=self.task_role,
            execution_role=self.execution_role,
        )
        arch = "arm64" if architecture.name == lambda_.Architecture.ARM_64.name else "x86_64"
        repository, tag = image_asset(self, "Image", bundle, dockerfile(python_version), architecture=arch)
        self.container = self.task_definition.add_container(
            CONTAINER,
            image=ecs.ContainerImage.from_ecr_repository(repository, tag),
            entry_point=list(ENTRY_POINT),  # the image's own, said again where operators look
            environment=dict(environment),
            logging=ecs.LogDrivers.aws_logs(stream_prefix="long-turn", log_group=self.log_group),
            essential=True,
            readonly_root_filesystem=False,  # agents write temporary files (ephemeral storage)
        )

    def _public_vpc(self) -> ec2.Vpc:
        return ec2.Vpc(
            self,
            "Vpc",
            max_azs=2,
            nat_gateways=0,
            subnet_configuration=[
                ec2.SubnetConfiguration(name="Public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=24)
            ],
            # The default security group is used by nothing; restricting it takes a custom
            # resource (a Lambda function) of its own.
            restrict_default_security_group=False,
        )

    def grant(
        self,
        storage: TaskStorage,
        queue: sqs.IQueue,
        *,
        secrets: Sequence[secretsmanager.ISecret | ssm.IParameter],
        statements: Sequence[iam.PolicyStatement],
    ) -> None:
        """The worker's access on the task role: the task log, the run queue's message it holds
        and deletes, the worker's secrets and models (``statements``); nothing else."""
        storage.grant_task_log(self.task_role, write=True)
        self.task_role.add_to_policy(
            iam.PolicyStatement(
                actions=["sqs:ChangeMessageVisibility", "sqs:DeleteMessage"], resources=[queue.queue_arn]
            )
        )
        for secret in secrets:
            secret.grant_read(self.task_role)
        for statement in statements:
            self.task_role.add_to_policy(statement)

    def launched_by(self, function: lambda_.Function) -> None:
        """Let ``function`` (the worker) start this task definition's tasks, passing exactly its two
        roles, and tell it where (the launcher's settings)."""
        function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["ecs:RunTask"],
                resources=[self.task_definition.task_definition_arn],
                conditions={"ArnEquals": {"ecs:cluster": self.cluster.cluster_arn}},
            )
        )
        # RunTask tags the task it starts (the A2A task's id) as part of the call.
        function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["ecs:TagResource"],
                resources=[self._tasks_arn()],
                conditions={"StringEquals": {"ecs:CreateAction": "RunTask"}},
            )
        )
        function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["iam:PassRole"],
                resources=[self.task_role.role_arn, self.execution_role.role_arn],
                conditions={"StringEquals": {"iam:PassedToService": "ecs-tasks.amazonaws.com"}},
            )
        )
        for name, value in self.launcher_environment().items():
            function.add_environment(name, value)

    def launcher_environment(self) -> dict[str, str]:
        """Where the worker starts long turns: `a2a_core.settings.Settings`' ``long_turn_*``."""
        stack = Stack.of(self)
        values = (
            self.cluster.cluster_arn,
            self.task_definition.task_definition_arn,
            stack.to_json_string(self.subnets.subnet_ids),
            stack.to_json_string([self.security_group.security_group_id]),
            str(self.options.public_ip).lower(),
            CONTAINER,
            "fargate_spot" if self.options.spot else "fargate",
        )
        return dict(zip(LAUNCHER_VARIABLES, values, strict=True))

    def failure_metric(self) -> cloudwatch.Metric:
        """Errors the long-turn worker logged (a failed turn, a crash's traceback), per minute."""
        filter_ = logs.MetricFilter(
            self,
            "Failures",
            log_group=self.log_group,
            filter_pattern=logs.FilterPattern.any_term(*FAILURE_TERMS),
            metric_namespace=METRIC_NAMESPACE,
            metric_name="LongTurnErrors",
            metric_value="1",
            unit=cloudwatch.Unit.COUNT,
        )
        return filter_.metric(period=Duration.minutes(1), statistic="Sum")

    def _tasks_arn(self) -> str:
        cluster_name = self.cluster.cluster_name
        return Stack.of(self).format_arn(service="ecs", resource="task", resource_name=f"{cluster_name}/*")


def _selection(options: LongTurnOptions) -> dict[str, Any]:
    """``options.subnets`` as `ec2.IVpc.select_subnets`' arguments; by default the VPC's public
    subnets (its private ones with egress when the tasks get no public IP)."""
    if options.subnets is None:
        kind = ec2.SubnetType.PUBLIC if options.public_ip else ec2.SubnetType.PRIVATE_WITH_EGRESS
        return {"subnet_type": kind}
    return {name: getattr(options.subnets, name) for name in _SELECTION_FIELDS}


_SELECTION_FIELDS = (
    *("availability_zones", "one_per_az", "subnet_filters"),
    *("subnet_group_name", "subnets", "subnet_type"),
)


def _ecs_architecture(architecture: lambda_.Architecture) -> ecs.CpuArchitecture:
    arm = architecture.name == lambda_.Architecture.ARM_64.name
    return ecs.CpuArchitecture.ARM64 if arm else ecs.CpuArchitecture.X86_64
