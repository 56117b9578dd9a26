"""The long-turn launcher on moto's ECS: one RunTask per turn, the turn in the container's
environment, the task named for tracing; a refusal or a placement failure raises, naming why."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from a2a_core.aws.ecs_launcher import RUN_TAG, TASK_TAG, EcsLaunchError, EcsTurnLauncher
from a2a_core.aws.http_pool import HttpResponse
from a2a_core.aws.json_client import AwsJsonClient
from a2a_core.compose.aws import build_turn_launcher
from a2a_core.core.broker import RunOperation
from a2a_core.core.turn.long_turns import LongTurnLaunch
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.settings import Settings, SettingsError

pytestmark = pytest.mark.anyio
QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:a2a-runs"


def ecs_client(local_aws: EmulatedAws) -> AwsJsonClient:
    return AwsJsonClient("ecs", local_aws.region, local_aws.endpoint_url)


@pytest.fixture(scope="module")
def network(local_aws: EmulatedAws) -> tuple[list[str], str]:
    """Two subnets and a security group on moto's EC2 (RunTask checks that the subnets exist)."""
    import boto3

    ec2 = boto3.client(
        "ec2",
        region_name=local_aws.region,
        endpoint_url=local_aws.endpoint_url,
        aws_access_key_id=local_aws.credentials[0],
        aws_secret_access_key=local_aws.credentials[1],
    )
    vpc = ec2.create_vpc(CidrBlock="10.42.0.0/16")["Vpc"]["VpcId"]
    # moto names a task's network interface by its DNS name: without hostnames it has none.
    ec2.modify_vpc_attribute(VpcId=vpc, EnableDnsHostnames={"Value": True})
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.42.{n}.0/24")["Subnet"]["SubnetId"] for n in (1, 2)
    ]
    group = ec2.create_security_group(GroupName=f"long-{vpc}", Description="long turns", VpcId=vpc)
    return subnets, group["GroupId"]


@pytest.fixture
def cluster(local_aws: EmulatedAws, network: tuple[list[str], str]) -> tuple[str, str, list[str], str]:
    """A fresh cluster and the long-turn worker's task definition on it, with the network:
    (cluster, definition, subnets, security group)."""
    ecs = ecs_client(local_aws)
    name = f"long-{uuid.uuid4().hex[:8]}"
    cluster = ecs.create_cluster(clusterName=name)["cluster"]["clusterArn"]
    definition = ecs.register_task_definition(
        family=name,
        networkMode="awsvpc",
        requiresCompatibilities=["FARGATE"],
        cpu="1024",
        memory="2048",
        containerDefinitions=[{"name": "worker", "image": "worker", "memory": 2048, "essential": True}],
    )["taskDefinition"]["taskDefinitionArn"]
    return cluster, definition, *network


Cluster = tuple[str, str, list[str], str]


def settings(local_aws: EmulatedAws, cluster: Cluster, **more: Any) -> Settings:
    environ = {
        "A2A_AWS_REGION": local_aws.region,
        "A2A_AWS_ENDPOINT_URL": local_aws.endpoint_url,
        "A2A_LONG_TURN_CLUSTER": cluster[0],
        "A2A_LONG_TURN_TASK_DEFINITION": cluster[1],
        "A2A_LONG_TURN_SUBNETS": json.dumps(cluster[2]),
        "A2A_LONG_TURN_SECURITY_GROUPS": json.dumps([cluster[3]]),
    }
    return Settings.from_env(environ, **more)


def a_launch(receipt: str | None = "receipt-1") -> LongTurnLaunch:
    operation = RunOperation(task_id=f"task-{uuid.uuid4().hex[:6]}", run_id="run-1")
    return LongTurnLaunch(operation, QUEUE_ARN, receipt)


def sent(client: AwsJsonClient) -> list[dict[str, Any]]:
    """The RunTask parameters ``client`` sends from now on."""
    calls: list[dict[str, Any]] = []
    client.after_call.append(
        lambda operation, params, _: calls.append(params) if operation == "RunTask" else None
    )
    return calls


def started(local_aws: EmulatedAws, cluster: str, launch: LongTurnLaunch) -> list[dict[str, Any]]:
    ecs = ecs_client(local_aws)
    arns = ecs.list_tasks(cluster=cluster, startedBy=f"a2a-{launch.operation.task_id}")["taskArns"]
    return ecs.describe_tasks(cluster=cluster, tasks=arns, include=["TAGS"])["tasks"] if arns else []


async def test_a_turn_starts_one_fargate_task_carrying_it(local_aws: EmulatedAws, cluster: Cluster) -> None:
    ecs = ecs_client(local_aws)
    calls = sent(ecs)
    launcher = build_turn_launcher(settings(local_aws, cluster), ecs)
    assert isinstance(launcher, EcsTurnLauncher)
    launch = a_launch()
    await launcher.launch(launch)

    (task,) = started(local_aws, cluster[0], launch)
    assert task["taskDefinitionArn"] == cluster[1]
    assert task["launchType"] == "FARGATE"
    (override,) = task["overrides"]["containerOverrides"]
    assert override["name"] == "worker"
    # What the long-turn worker reads back is the launch itself.
    assert LongTurnLaunch.from_env({e["name"]: e["value"] for e in override["environment"]}) == launch
    tags = {tag["key"]: tag["value"] for tag in task["tags"]}
    assert tags == {TASK_TAG: launch.operation.task_id, RUN_TAG: "run-1"}
    (attachment,) = task["attachments"]  # its network interface, in the first subnet
    assert {d["name"]: d["value"] for d in attachment["details"]}["subnetId"] == cluster[2][0]
    (params,) = calls
    assert params["networkConfiguration"] == {
        "awsvpcConfiguration": {
            "subnets": cluster[2],
            "securityGroups": [cluster[3]],
            "assignPublicIp": "ENABLED",
        }
    }
    assert len(params["clientToken"]) == 64


async def test_spot_runs_on_the_fargate_spot_capacity_provider(
    local_aws: EmulatedAws, cluster: Cluster
) -> None:
    launcher = build_turn_launcher(
        settings(local_aws, cluster, long_turn_capacity="fargate_spot", long_turn_public_ip=False)
    )
    assert launcher is not None
    launch = a_launch()
    await launcher.launch(launch)
    (task,) = started(local_aws, cluster[0], launch)
    assert task["capacityProviderName"] == "FARGATE_SPOT"
    params = launcher.run_task_params(launch)  # type: ignore[attr-defined]
    assert "launchType" not in params
    assert params["networkConfiguration"]["awsvpcConfiguration"]["assignPublicIp"] == "DISABLED"


async def test_a_refused_run_task_raises_naming_ecs_error(local_aws: EmulatedAws, cluster: Cluster) -> None:
    launcher = build_turn_launcher(settings(local_aws, (f"missing-{uuid.uuid4().hex[:6]}", *cluster[1:])))
    assert launcher is not None
    launch = a_launch()
    with pytest.raises(
        EcsLaunchError, match=rf"RunTask for task {launch.operation.task_id} failed: .*ClusterNotFound"
    ):
        await launcher.launch(launch)
    assert started(local_aws, cluster[0], launch) == []


async def test_placement_failures_raise_with_ecs_reason(local_aws: EmulatedAws, cluster: Cluster) -> None:
    ecs = ecs_client(local_aws)
    # RunTask answers 200 with `failures` when Fargate has no capacity: what moto never does.
    reason = (
        "Capacity is unavailable at this time. Please try again later or in a different availability zone"
    )
    no_capacity = {"tasks": [], "failures": [{"arn": cluster[1], "reason": reason}]}
    ecs.before_call.append(lambda operation, _: no_capacity if operation == "RunTask" else None)
    launcher = build_turn_launcher(settings(local_aws, cluster), ecs)
    assert launcher is not None
    with pytest.raises(EcsLaunchError, match=r"started no long-turn worker .*Capacity is unavailable"):
        await launcher.launch(a_launch())


async def test_a_retried_run_task_starts_the_task_once_per_delivery(
    local_aws: EmulatedAws, cluster: Cluster
) -> None:
    """A 503 to the first attempt: the client retries with the same client token. The next
    delivery of the message (its new receipt) launches with a new token."""
    ecs = ecs_client(local_aws)
    calls = sent(ecs)
    send = ecs.transport
    answers = iter([HttpResponse(503, {}, b'{"__type": "ServerException", "message": "try again"}')])
    ecs.transport = lambda method, headers, body: next(answers, None) or send(method, headers, body)
    launcher = build_turn_launcher(settings(local_aws, cluster), ecs)
    assert launcher is not None
    first = a_launch("receipt-1")
    await launcher.launch(first)
    assert len(started(local_aws, cluster[0], first)) == 1
    again = LongTurnLaunch(first.operation, first.source, "receipt-2")
    assert launcher.run_task_params(again)["clientToken"] != calls[0]["clientToken"]  # type: ignore[attr-defined]
    assert launcher.run_task_params(first)["clientToken"] == calls[0]["clientToken"]  # type: ignore[attr-defined]


def test_no_long_turn_cluster_no_launcher() -> None:
    assert build_turn_launcher(Settings()) is None


def test_a_half_configured_cluster_is_refused_naming_what_is_missing() -> None:
    with pytest.raises(SettingsError, match="A2A_LONG_TURN_TASK_DEFINITION, A2A_LONG_TURN_SUBNETS"):
        build_turn_launcher(Settings(long_turn_cluster="arn:aws:ecs:us-east-1:123456789012:cluster/long"))


def test_subnets_and_groups_must_be_their_ids() -> None:
    with pytest.raises(SettingsError, match=r"A2A_LONG_TURN_SUBNETS: .*not subnet-"):
        Settings.from_env({"A2A_LONG_TURN_SUBNETS": '["sg-0123abcd"]'})
    with pytest.raises(SettingsError, match=r"A2A_LONG_TURN_SECURITY_GROUPS: .*not sg-"):
        Settings.from_env({"A2A_LONG_TURN_SECURITY_GROUPS": '["subnet-0a1b2c3d"]'})
    with pytest.raises(SettingsError, match="A2A_LONG_TURN_CAPACITY"):
        Settings.from_env({"A2A_LONG_TURN_CAPACITY": "spot"})


def test_task_ids_are_made_safe_for_started_by_and_tags() -> None:
    launcher = EcsTurnLauncher(None, build_config())
    launch = LongTurnLaunch(RunOperation(task_id="a b/c#" + "x" * 200, run_id="r"))
    params = launcher.run_task_params(launch)
    assert params["startedBy"].startswith("a2a-a-b-c-")
    assert len(params["startedBy"]) == 128
    assert params["tags"][0]["value"].startswith("a b/c-")
    assert "clientToken" not in params  # no receipt: nothing would deliver it again


def build_config() -> Any:
    from a2a_core.aws.ecs_launcher import EcsLaunchConfig

    return EcsLaunchConfig(cluster="long", task_definition="worker:1", subnets=("subnet-0a1b2c3d",))
