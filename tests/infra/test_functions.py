"""The functions: runtime, sizing, tracing, logs, environment and least-privilege roles."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Capture, Template

from a2a_core.aws.resources import PUSH_QUEUE
from a2a_core.cdk.service import SIGNING_KEY_ENV
from a2a_core.cdk.testing import logical_id, properties
from a2a_core.project import find_project
from a2a_core.settings import ENV_PREFIX, Settings

FUNCTIONS = ("Api", "Worker", "DeadLetter")
HANDLERS = {
    "Api": "a2a_core.functions.api.handler.handler",
    "Worker": "a2a_core.functions.worker.handler.handler",
    "DeadLetter": "a2a_core.functions.dlq.handler.handler",
}
XRAY = {"Action": ["xray:PutTelemetryRecords", "xray:PutTraceSegments"], "Resource": "*"}


def _function(template: Template, name: str) -> dict[str, Any]:
    return properties(template, "AWS::Lambda::Function", f"/Functions/{name}/Resource")


def _ref(template: Template, resource_type: str, path_suffix: str, attribute: str | None = None) -> Any:
    name = logical_id(template, resource_type, path_suffix)
    return {"Fn::GetAtt": [name, attribute]} if attribute else {"Ref": name}


def _statements(template: Template, role: str) -> list[dict[str, Any]]:
    """The role's policy statements, actions sorted, ``Effect`` checked and dropped."""
    policy = properties(template, "AWS::IAM::Policy", f"/Functions/{role}Role/DefaultPolicy/Resource")
    statements = []
    for statement in policy["PolicyDocument"]["Statement"]:
        assert statement.pop("Effect") == "Allow"
        actions = statement["Action"]
        statement["Action"] = sorted([actions] if isinstance(actions, str) else actions)
        statements.append(statement)
    return sorted(statements, key=lambda s: json.dumps(s, sort_keys=True))


def _expect(*statements: dict[str, Any]) -> list[dict[str, Any]]:
    normalized = [{**s, "Action": sorted(s["Action"])} for s in statements]
    return sorted(normalized, key=lambda s: json.dumps(s, sort_keys=True))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_run_python_313_on_arm64_with_active_tracing(default: Template, name: str) -> None:
    function = _function(default, name)
    assert function["Runtime"] == "python3.13"
    assert function["Architectures"] == ["arm64"]
    assert function["TracingConfig"] == {"Mode": "Active"}
    assert function["Handler"] == HANDLERS[name]


def test_function_sizes_and_timeouts(default: Template, full: Template) -> None:
    sizes = {
        name: (_function(default, name)["MemorySize"], _function(default, name)["Timeout"])
        for name in FUNCTIONS
    }
    assert sizes == {"Api": (256, 29), "Worker": (512, 900), "DeadLetter": (256, 60)}
    assert (_function(full, "Worker")["MemorySize"], _function(full, "Worker")["Timeout"]) == (1024, 600)
    assert _function(full, "Api")["Architectures"] == ["x86_64"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_function_logs_to_its_own_group_with_retention(default: Template, name: str) -> None:
    log_group = logical_id(default, "AWS::Logs::LogGroup", f"/Functions/{name}Logs/Resource")
    assert _function(default, name)["LoggingConfig"] == {"LogGroup": {"Ref": log_group}}
    default.has_resource_properties("AWS::Logs::LogGroup", {"RetentionInDays": 30})


@pytest.mark.parametrize("name", FUNCTIONS)
def test_environment_names_the_stacks_resources(default: Template, name: str) -> None:
    api = logical_id(default, "AWS::ApiGateway::RestApi", "/Api/Api/Resource")
    key = {SIGNING_KEY_ENV: _ref(default, "AWS::KMS::Key", "/PushSigningKey/Resource")}
    assert _function(default, name)["Environment"]["Variables"] == {
        **(key if name == "Api" else {}),
        "A2A_BACKEND": "aws",
        "A2A_AUTH_MODE": "api_key",
        "A2A_ALLOW_UNAUTHENTICATED": "false",
        "A2A_AWS_REGION": {"Ref": "AWS::Region"},
        "A2A_AGENT": "a2a_core.examples.echo:agent",  # as this repository's pyproject.toml names it
        "A2A_VERSION": find_project().version,  # the agent card's: the project's
        "A2A_TABLE_NAME": _ref(default, "AWS::DynamoDB::Table", "/Storage/Table/Resource"),
        "A2A_BUCKET_NAME": _ref(default, "AWS::S3::Bucket", "/Storage/Parts/Resource"),
        "A2A_QUEUE_URL": _ref(default, "AWS::SQS::Queue", "/Queues/Runs/Resource"),
        "A2A_DLQ_URL": _ref(default, "AWS::SQS::Queue", "/Queues/DeadLetters/Resource"),
        "A2A_RETENTION_DAYS": "30",
        "A2A_LEASE_SECONDS": "900",  # the worker's timeout
        # ListTasks page tokens: signed with a key every instance shares, the stack id's GUID.
        "A2A_PAGE_TOKEN_SECRET": {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]},
        "POWERTOOLS_SERVICE_NAME": "a2a-serverless",
        "A2A_PUBLIC_URL": {
            "Fn::Join": [
                "",
                [
                    "https://",
                    {"Ref": api},
                    ".execute-api.",
                    {"Ref": "AWS::Region"},
                    ".",
                    {"Ref": "AWS::URLSuffix"},
                    "/prod/",
                ],
            ]
        },
    }


def test_environment_is_a_valid_settings_object(default: Template, full: Template) -> None:
    for template, name in ((default, "Api"), (full, "Worker"), (full, "Push")):
        variables = _function(template, name)["Environment"]["Variables"]
        resolved = {
            key: value if isinstance(value, str) else "resolved-at-deploy" for key, value in variables.items()
        }
        settings = Settings.from_env(resolved)
        assert settings.backend == "aws"
        assert settings.lease_seconds == float(variables["A2A_LEASE_SECONDS"])
        unknown = {
            key
            for key in variables
            if key.startswith(ENV_PREFIX)
            and key.removeprefix(ENV_PREFIX).lower() not in Settings.model_fields
        }
        assert not unknown


def test_user_environment_and_custom_domain_reach_every_function(full: Template) -> None:
    for name in (*FUNCTIONS, "Push"):
        variables = _function(full, name)["Environment"]["Variables"]
        assert variables["A2A_PUSH_ENABLED"] == "true"  # the push hook turned push on
        assert variables["A2A_NAME"] == "Research agent"
        assert variables["A2A_VERSION"] == "2.1.0"  # from the project
        assert variables["A2A_AGENT"] == "my_agents.research.agent:agent"
        assert variables["A2A_PUBLIC_URL"] == "https://agent.example.com/"
        assert variables["A2A_LEASE_SECONDS"] == "600"
        assert variables["A2A_RETENTION_DAYS"] == "7"
        assert variables["A2A_PAGE_TOKEN_SECRET"] == "{{resolve:ssm:/agent/pages}}"  # the deployer's
    assert {_function(full, name)["Runtime"] for name in (*FUNCTIONS, "Push")} == {"python3.14"}


def test_api_role_may_use_the_task_log_enqueue_runs_and_read_the_public_key(default: Template) -> None:
    table = _ref(default, "AWS::DynamoDB::Table", "/Storage/Table/Resource", "Arn")
    bodies = {
        "Fn::Join": ["", [_ref(default, "AWS::S3::Bucket", "/Storage/Parts/Resource", "Arn"), "/tasks/*"]]
    }
    assert _statements(default, "Api") == _expect(
        XRAY,
        {
            "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
            "Resource": _ref(default, "AWS::Logs::LogGroup", "/Functions/ApiLogs/Resource", "Arn"),
        },
        {
            "Action": [
                "dynamodb:BatchGetItem",
                "dynamodb:DeleteItem",
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:Query",
                "dynamodb:UpdateItem",
            ],
            "Resource": table,
        },
        # ListTasks queries the two listing indexes; no other function may.
        {
            "Action": ["dynamodb:Query"],
            "Resource": [
                {"Fn::Join": ["", [table, "/index/by-owner"]]},
                {"Fn::Join": ["", [table, "/index/by-update"]]},
            ],
        },
        {"Action": ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"], "Resource": bodies},
        {
            "Action": ["sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"],
            "Resource": _ref(default, "AWS::SQS::Queue", "/Queues/Runs/Resource", "Arn"),
        },
        {
            "Action": ["kms:GetPublicKey"],
            "Resource": _ref(default, "AWS::KMS::Key", "/PushSigningKey/Resource", "Arn"),
        },
    )


@pytest.mark.parametrize(("name", "queue"), [("Worker", "Runs"), ("DeadLetter", "DeadLetters")])
def test_worker_and_dead_letter_roles_may_write_the_task_log_and_consume_their_queue(
    default: Template, name: str, queue: str
) -> None:
    table = _ref(default, "AWS::DynamoDB::Table", "/Storage/Table/Resource", "Arn")
    bodies = {
        "Fn::Join": ["", [_ref(default, "AWS::S3::Bucket", "/Storage/Parts/Resource", "Arn"), "/tasks/*"]]
    }
    assert _statements(default, name) == _expect(
        XRAY,
        {
            "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
            "Resource": _ref(default, "AWS::Logs::LogGroup", f"/Functions/{name}Logs/Resource", "Arn"),
        },
        {
            "Action": [
                "dynamodb:BatchGetItem",
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:Query",
                "dynamodb:UpdateItem",
            ],
            "Resource": table,
        },
        {"Action": ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"], "Resource": bodies},
        {
            "Action": [
                "sqs:ChangeMessageVisibility",
                "sqs:DeleteMessage",
                "sqs:GetQueueAttributes",
                "sqs:GetQueueUrl",
                "sqs:ReceiveMessage",
            ],
            "Resource": _ref(default, "AWS::SQS::Queue", f"/Queues/{queue}/Resource", "Arn"),
        },
    )


def test_roles_carry_no_managed_policies(default: Template) -> None:
    for role in default.find_resources("AWS::IAM::Role").values():
        assert "ManagedPolicyArns" not in role["Properties"]
        assert role["Properties"]["AssumeRolePolicyDocument"]["Statement"] == [
            {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}}
        ]


def test_push_hook_reads_marked_new_commits_from_the_stream_with_bounded_retries(full: Template) -> None:
    marked, unmarked = Capture(), Capture()
    full.has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "EventSourceArn": _ref(full, "AWS::DynamoDB::Table", "/Storage/Table/Resource", "StreamArn"),
            "FunctionName": _ref(full, "AWS::Lambda::Function", "/Functions/Push/Resource"),
            "StartingPosition": "LATEST",
            "BatchSize": 10,
            "BisectBatchOnFunctionError": True,
            "MaximumRetryAttempts": 3,
            "MaximumRecordAgeInSeconds": 3600,
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
            "DestinationConfig": {
                "OnFailure": {"Destination": _ref(full, "AWS::SQS::Queue", "/PushFailures/Resource", "Arn")}
            },
            "FilterCriteria": {"Filters": [{"Pattern": marked}, {"Pattern": unmarked}]},
        },
    )
    # A new commit the writer marked for the push function (a notified state of a task with a
    # push config), or one written by code from before the marks (during a deploy).
    commit = {"sk": {"S": [{"prefix": "EVT#"}]}}
    assert json.loads(marked.as_string()) == {
        "eventName": ["INSERT"],
        "dynamodb": {"NewImage": {**commit, "notify": {"BOOL": [True]}}},
    }
    assert json.loads(unmarked.as_string()) == {
        "eventName": ["INSERT"],
        "dynamodb": {"NewImage": {**commit, "notify": {"BOOL": [{"exists": False}]}}},
    }
    for queue in ("PushFailures", "PushDeadLetters"):
        assert properties(full, "AWS::SQS::Queue", f"/{queue}/Resource")["SqsManagedSseEnabled"] is True
    dead_letters = properties(full, "AWS::SQS::Queue", "/PushDeadLetters/Resource")
    assert dead_letters["MessageRetentionPeriod"] == PUSH_QUEUE.retention_seconds


def test_push_role_may_read_the_log_and_stream_sign_and_dead_letter_but_not_write(full: Template) -> None:
    table = _ref(full, "AWS::DynamoDB::Table", "/Storage/Table/Resource", "Arn")
    bodies = {"Fn::Join": ["", [_ref(full, "AWS::S3::Bucket", "/Storage/Parts/Resource", "Arn"), "/tasks/*"]]}
    assert _statements(full, "Push") == _expect(
        {**XRAY, "Action": [*XRAY["Action"], "dynamodb:ListStreams"]},
        {
            "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
            "Resource": _ref(full, "AWS::Logs::LogGroup", "/Functions/PushLogs/Resource", "Arn"),
        },
        {"Action": ["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"], "Resource": table},
        {"Action": ["s3:GetObject"], "Resource": bodies},
        {"Action": ["kms:Sign"], "Resource": _ref(full, "AWS::KMS::Key", "/PushSigningKey/Resource", "Arn")},
        {
            "Action": ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"],
            "Resource": _ref(full, "AWS::DynamoDB::Table", "/Storage/Table/Resource", "StreamArn"),
        },
        {
            # Undeliverable notifications (the function) and abandoned records (the mapping).
            "Action": ["sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"],
            "Resource": [
                _ref(full, "AWS::SQS::Queue", "/PushDeadLetters/Resource", "Arn"),
                _ref(full, "AWS::SQS::Queue", "/PushFailures/Resource", "Arn"),
            ],
        },
    )
    variables = _function(full, "Push")["Environment"]["Variables"]
    assert variables[SIGNING_KEY_ENV] == _ref(full, "AWS::KMS::Key", "/PushSigningKey/Resource")
    assert variables["A2A_PUSH_DLQ_URL"] == _ref(full, "AWS::SQS::Queue", "/PushDeadLetters/Resource")


def test_only_the_push_function_may_sign(full: Template) -> None:
    signers = [
        policy["Metadata"]["aws:cdk:path"]
        for policy in full.find_resources("AWS::IAM::Policy").values()
        if "kms:Sign" in json.dumps(policy["Properties"]["PolicyDocument"])
    ]
    assert len(signers) == 1
    assert "/Functions/PushRole/" in signers[0]


def test_the_only_wildcard_resources_are_xray_and_stream_listing(default: Template, full: Template) -> None:
    for template in (default, full):
        for policy in template.find_resources("AWS::IAM::Policy").values():
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                if statement["Resource"] == "*":
                    actions = (
                        statement["Action"]
                        if isinstance(statement["Action"], list)
                        else [statement["Action"]]
                    )
                    assert set(actions) <= {
                        "xray:PutTraceSegments",
                        "xray:PutTelemetryRecords",
                        "dynamodb:ListStreams",
                    }
