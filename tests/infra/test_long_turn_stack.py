"""The long-turn worker on ECS Fargate in the template: added only when ``max_turn_seconds``
passes what the Lambda worker allows; a cluster, an arm64 task definition running the long-turn
entry point, no NAT gateway, roles with exactly the worker's access, the launch grants on the
worker, an alarm; cdk-nag (as `cdk synth` runs it) and cfn-lint pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Stack, cx_api
from aws_cdk import aws_ec2 as ec2
from aws_cdk.assertions import Template
from cfnlint.api import lint  # type: ignore[import-untyped]
from cfnlint.config import ManualArgs  # type: ignore[import-untyped]

from a2a_core.aws.resources import LONG_TURN_RECEIVES
from a2a_core.bundling import modules
from a2a_core.bundling.build import KIT_SOURCE
from a2a_core.bundling.plan import BOTOCORE_FAMILY, LONG_WORKER, BundleOptions, BundlePlan
from a2a_core.cdk import A2AService, A2AServiceProps, A2AStack
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.cdk.long_worker import LAUNCHER_VARIABLES
from a2a_core.cdk.options import ConfigurationError, LongTurnOptions
from a2a_core.cdk.testing import checked_app, properties, resource
from a2a_core.core.turn.worker import MAX_ATTEMPTS
from a2a_core.project import find_project

PROFILE = "us.anthropic.claude-sonnet-4-20250514-v1:0"
SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:openai-AbCdEf"


@pytest.fixture(scope="module")
def long_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("long.out")


@pytest.fixture(scope="module")
def assembly(long_out: Path) -> cx_api.CloudAssembly:
    app = checked_app(long_out)
    props = A2AServiceProps(
        max_turn_seconds=3600,
        bedrock_models=[PROFILE],
        worker_secrets={"OPENAI_API_KEY": SECRET_ARN},
        worker_environment={"MODEL": "sonnet"},
    )
    A2AStack(app, "Long", props, push=True)
    A2AStack(app, "LongSpot", A2AServiceProps(max_turn_seconds=7200, long_turns=LongTurnOptions(spot=True)))
    return app.synth()  # raises if cdk-nag finds anything not acknowledged


@pytest.fixture(scope="module")
def long(assembly: cx_api.CloudAssembly) -> Template:
    return Template.from_json(assembly.get_stack_by_name("Long").template)


@pytest.fixture(scope="module")
def spot(assembly: cx_api.CloudAssembly) -> Template:
    return Template.from_json(assembly.get_stack_by_name("LongSpot").template)


def actions(template: Template, role_suffix: str) -> set[str]:
    """Every action the policies attached to the role at ``*role_suffix`` allow."""
    role = next(
        name
        for name, body in template.find_resources("AWS::IAM::Role").items()
        if body["Metadata"]["aws:cdk:path"].endswith(f"{role_suffix}/Resource")
    )
    found: set[str] = set()
    for policy in template.find_resources("AWS::IAM::Policy").values():
        if {"Ref": role} in policy["Properties"]["Roles"]:
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                listed = statement["Action"]
                found |= {listed} if isinstance(listed, str) else set(listed)
    return found


def statements(template: Template, role_suffix: str, action: str) -> list[dict[str, Any]]:
    policy = properties(
        template, "AWS::IAM::Policy", role_suffix.replace("Role", "Role/DefaultPolicy/Resource")
    )
    return [s for s in policy["PolicyDocument"]["Statement"] if action in json.dumps(s["Action"])]


def container(template: Template) -> dict[str, Any]:
    (definition,) = properties(template, "AWS::ECS::TaskDefinition", "LongTurns/Task/Resource")[
        "ContainerDefinitions"
    ]
    return dict(definition)


def worker_environment(template: Template) -> dict[str, Any]:
    function = properties(template, "AWS::Lambda::Function", "Functions/Worker/Resource")
    return dict(function["Environment"]["Variables"])


def test_the_task_definition_runs_the_long_turn_entry_point_on_arm64(long: Template) -> None:
    task = properties(long, "AWS::ECS::TaskDefinition", "LongTurns/Task/Resource")
    assert task["RuntimePlatform"] == {"CpuArchitecture": "ARM64", "OperatingSystemFamily": "LINUX"}
    assert task["RequiresCompatibilities"] == ["FARGATE"]
    assert (task["Cpu"], task["Memory"], task["NetworkMode"]) == ("1024", "2048", "awsvpc")
    definition = container(long)
    assert definition["EntryPoint"] == ["python", "-m", "a2a_core.functions.long_worker"]
    assert definition["LogConfiguration"]["LogDriver"] == "awslogs"
    long.resource_count_is("AWS::ECS::Cluster", 1)


def test_the_image_is_the_bundle_on_a_python_base_image(long: Template, long_out: Path) -> None:
    image = json.dumps(container(long)["Image"])
    (asset,) = [
        path
        for path in long_out.glob("asset.*")
        if (path / "Dockerfile").is_file() and "long_worker" in (path / "Dockerfile").read_text()
    ]
    dockerfile = (asset / "Dockerfile").read_text()
    assert "FROM public.ecr.aws/docker/library/python:3.13-slim" in dockerfile
    assert 'ENTRYPOINT ["python", "-m", "a2a_core.functions.long_worker"]' in dockerfile
    assert "lambda" not in dockerfile.lower().split("from", 1)[1]  # not the Lambda base image
    assert asset.name.removeprefix("asset.") in image  # the container runs that asset's image


def test_the_task_runs_with_the_worker_lambdas_environment(long: Template) -> None:
    worker = worker_environment(long)
    task = {pair["Name"]: pair["Value"] for pair in container(long)["Environment"]}
    launcher = set(LAUNCHER_VARIABLES)
    assert {k: v for k, v in worker.items() if k not in launcher} == task
    # Added after the worker: the public URL, push, the secrets' ARNs (never their values).
    assert {"A2A_PUBLIC_URL", "A2A_PUSH_ENABLED", "A2A_WORKER_SECRETS", "MODEL"} <= set(task)
    assert SECRET_ARN in json.dumps(task["A2A_WORKER_SECRETS"])
    assert launcher <= set(worker)
    assert worker["A2A_LONG_TURN_PUBLIC_IP"] == "true"
    assert worker["A2A_LONG_TURN_CAPACITY"] == "fargate"


def test_the_task_role_has_exactly_the_workers_access(long: Template) -> None:
    assert actions(long, "LongTurns/TaskRole") == {
        "dynamodb:BatchGetItem",
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "s3:GetObject",
        "s3:PutObject",
        "s3:DeleteObject",
        "sqs:ChangeMessageVisibility",
        "sqs:DeleteMessage",
        "secretsmanager:GetSecretValue",
        "secretsmanager:DescribeSecret",
        "bedrock:InvokeModel",
        "bedrock:InvokeModelWithResponseStream",
    }
    (queue,) = statements(long, "LongTurns/TaskRole", "sqs:DeleteMessage")
    assert "ServiceQueuesRuns" in json.dumps(queue["Resource"])


def test_the_execution_role_only_pulls_the_image_and_writes_the_logs(long: Template) -> None:
    assert actions(long, "LongTurns/ExecutionRole") == {
        "ecr:BatchCheckLayerAvailability",
        "ecr:GetDownloadUrlForLayer",
        "ecr:BatchGetImage",
        "ecr:GetAuthorizationToken",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
    }


def test_the_worker_may_start_only_this_task_passing_only_its_two_roles(long: Template) -> None:
    added = {"ecs:RunTask", "ecs:TagResource", "iam:PassRole"}
    assert added <= actions(long, "Functions/WorkerRole")
    (run,) = statements(long, "Functions/WorkerRole", "ecs:RunTask")
    assert run["Resource"] == {"Ref": next(iter(long.find_resources("AWS::ECS::TaskDefinition")))}
    (passing,) = statements(long, "Functions/WorkerRole", "iam:PassRole")
    roles = {ref["Fn::GetAtt"][0] for ref in passing["Resource"]}
    assert {name.split("LongTurns")[1][:8] for name in roles} == {"TaskRole", "Executio"}
    assert passing["Condition"] == {"StringEquals": {"iam:PassedToService": "ecs-tasks.amazonaws.com"}}
    # The API and the dead-letter function start nothing.
    for other in ("Functions/ApiRole", "Functions/DeadLetterRole"):
        assert not added & actions(long, other)


def test_the_network_scales_to_zero_no_nat_no_endpoints(long: Template) -> None:
    for kind in ("AWS::EC2::NatGateway", "AWS::EC2::VPCEndpoint", "AWS::EC2::EIP"):
        long.resource_count_is(kind, 0)
    subnets = long.find_resources("AWS::EC2::Subnet")
    assert len(subnets) == 2
    assert all(body["Properties"]["MapPublicIpOnLaunch"] for body in subnets.values())
    group = properties(long, "AWS::EC2::SecurityGroup", "LongTurns/Tasks/Resource")
    assert "SecurityGroupIngress" not in group


def test_an_alarm_watches_errors_the_long_worker_logs(long: Template) -> None:
    (metric_filter,) = long.find_resources("AWS::Logs::MetricFilter").values()
    transformation = metric_filter["Properties"]["MetricTransformations"][0]
    alarm = properties(long, "AWS::CloudWatch::Alarm", "Alarms/LongTurnErrors/Resource")
    assert (alarm["MetricName"], alarm["Namespace"]) == (
        transformation["MetricName"],
        transformation["MetricNamespace"],
    )
    assert "ERROR" in metric_filter["Properties"]["FilterPattern"]
    log_group = metric_filter["Properties"]["LogGroupName"]["Ref"]
    assert (
        resource(long, "AWS::Logs::LogGroup", "LongTurns/Logs/Resource")["Properties"]["RetentionInDays"]
        == 30
    )
    assert log_group.startswith("ServiceLongTurnsLogs")


def test_spot_runs_on_the_clusters_fargate_spot_provider(spot: Template) -> None:
    (providers,) = spot.find_resources("AWS::ECS::ClusterCapacityProviderAssociations").values()
    assert set(providers["Properties"]["CapacityProviders"]) == {"FARGATE", "FARGATE_SPOT"}
    assert worker_environment(spot)["A2A_LONG_TURN_CAPACITY"] == "fargate_spot"


@pytest.mark.parametrize("stack", ["Long", "LongSpot"])
def test_cfn_lint_passes(assembly: cx_api.CloudAssembly, long_out: Path, stack: str) -> None:
    template = (long_out / f"{stack}.template.json").read_text()
    config = ManualArgs(regions=["us-east-1", "eu-west-1", "ap-southeast-2"], ignore_checks=["W3005"])
    assert [str(match) for match in lint(template, config=config)] == []


def test_a_service_without_long_turns_has_none_of_it(default: Template) -> None:
    for kind in ("AWS::ECS::Cluster", "AWS::ECS::TaskDefinition", "AWS::EC2::VPC", "AWS::Logs::MetricFilter"):
        default.resource_count_is(kind, 0)
    assert not {"ecs:RunTask", "iam:PassRole"} & actions(default, "Functions/WorkerRole")
    assert not set(LAUNCHER_VARIABLES) & set(worker_environment(default))


@pytest.mark.parametrize(("turn", "fargate"), [(890, False), (891, True)])
def test_long_turns_start_past_the_lambda_workers_timeout_less_its_margin(
    tmp_path: Path, turn: int, fargate: bool
) -> None:
    app = App(outdir=str(tmp_path), context={SKIP_BUNDLING_CONTEXT: True})
    service = A2AService(Stack(app, "Turns"), "Service", A2AServiceProps(max_turn_seconds=turn))
    assert (service.long_turns is not None) is fargate


def test_the_containers_bundle_is_the_workers_with_botocore_and_the_entry_point() -> None:
    plan = BundlePlan(find_project(), BundleOptions())
    worker, container = plan.bundle("worker"), plan.long_worker_bundle()
    assert not worker.spec.include_boto3  # the Lambda runtime brings botocore to the worker
    assert set(BOTOCORE_FAMILY) <= set(container.spec.installed)
    pinned = {line.partition("==")[0] for line in container.requirements.splitlines()}
    assert set(worker.requirements.splitlines()) <= set(container.requirements.splitlines())
    assert set(BOTOCORE_FAMILY) <= pinned
    entry = modules.reachable([LONG_WORKER, f"{LONG_WORKER}.__main__"], KIT_SOURCE)
    assert set(worker.spec.kit_modules) | entry == set(container.spec.kit_modules)
    assert container.asset_hash() != worker.asset_hash()  # its own image, built beside the worker's


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cpu": 300}, "cpu is one of"),
        ({"cpu": 1024, "memory_mb": 1024}, "2048 to 8192 in steps of 1024, got 1024"),
        ({"cpu": 256, "memory_mb": 1536}, "512, 1024, 2048, got 1536"),
        ({"ephemeral_storage_gib": 10}, "21 to 200"),
        ({"subnets": ec2.SubnetSelection(subnet_type=ec2.SubnetType.PUBLIC)}, "pass vpc too"),
    ],
)
def test_task_sizes_fargate_cannot_run_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        LongTurnOptions(**options)


def test_a_vpc_of_the_deployers_with_private_subnets(tmp_path: Path) -> None:
    context = {SKIP_BUNDLING_CONTEXT: True, "aws:cdk:enable-path-metadata": True}
    stack = Stack(App(outdir=str(tmp_path), context=context), "OwnVpc")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=1)
    options = LongTurnOptions(vpc=vpc, public_ip=False, cpu=2048, memory_mb=8192)
    service = A2AService(stack, "Service", A2AServiceProps(max_turn_seconds=1800, long_turns=options))
    template = Template.from_stack(stack)
    template.resource_count_is("AWS::EC2::VPC", 1)  # the deployer's, no second one
    environment = worker_environment(template)
    assert environment["A2A_LONG_TURN_PUBLIC_IP"] == "false"
    private = {subnet.subnet_id for subnet in vpc.private_subnets}
    assert service.long_turns is not None
    assert set(service.long_turns.subnets.subnet_ids) == private
    task = properties(template, "AWS::ECS::TaskDefinition", "LongTurns/Task/Resource")
    assert (task["Cpu"], task["Memory"]) == ("2048", "8192")


def _max_receives(template: Template) -> int:
    (queue,) = [
        body for logical, body in template.find_resources("AWS::SQS::Queue").items() if "Runs" in logical
    ]
    return int(queue["Properties"]["RedrivePolicy"]["maxReceiveCount"])


def test_the_run_queue_has_room_for_launches_beside_the_attempts(long: Template, default: Template) -> None:
    # A launch that never starts an attempt (no capacity) is a receive too; attempts stay bounded
    # by the task log (the hand-off fails the turn after MAX_ATTEMPTS claims).
    assert _max_receives(long) == LONG_TURN_RECEIVES > MAX_ATTEMPTS
    assert _max_receives(default) == MAX_ATTEMPTS
