"""Every cdk-nag finding the service accepts, each on the one resource it concerns, with why.

cdk-nag 3 reads CDK's own acknowledgments (`Validations.of(construct).acknowledge`); an IAM
wildcard is acknowledged per finding (``AwsSolutions-IAM5[Resource::...]``), never per rule.
"""

from __future__ import annotations

from typing import Protocol

from aws_cdk import Acknowledgment, CfnElement, Stack, Validations
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import IConstruct

from a2a_core.cdk.api import AgentApi
from a2a_core.cdk.function_url import AgentFunctionUrl
from a2a_core.cdk.functions import ServiceFunctions
from a2a_core.cdk.http_api import AgentHttpApi
from a2a_core.cdk.long_worker import LongTurnWorker
from a2a_core.cdk.models import ROUTED_REGIONS, BedrockModel
from a2a_core.cdk.options import AuthMode
from a2a_core.cdk.props import latest_python
from a2a_core.cdk.storage import TaskStorage

PREFIX = "AwsSolutions::AwsSolutions-"


class AcknowledgedService(Protocol):
    """What the acknowledgments look at: an `a2a_core.cdk.service.A2AService`, seen from here."""

    @property
    def auth(self) -> AuthMode: ...
    @property
    def functions(self) -> ServiceFunctions: ...
    @property
    def authorizer_function(self) -> lambda_.Function | None: ...
    @property
    def storage(self) -> TaskStorage: ...
    @property
    def api(self) -> AgentApi | AgentHttpApi | AgentFunctionUrl: ...
    @property
    def models(self) -> tuple[BedrockModel, ...]: ...
    @property
    def push_function(self) -> lambda_.Function | None: ...
    @property
    def push_failures(self) -> sqs.Queue | None: ...
    @property
    def push_dead_letters(self) -> sqs.Queue | None: ...


XRAY = (
    "IAM5[Resource::*]",
    "X-Ray's PutTraceSegments and PutTelemetryRecords support no resource-level permissions "
    "(added by Tracing.ACTIVE); nothing else in this role uses a wildcard resource.",
)
RUNTIME = (
    "L1",
    "The runtime is the deployer's choice (A2AServiceProps.runtime; the default Python 3.13 runs on "
    "Amazon Linux 2023 as long as 3.14 does, with more wheels for agents' dependencies); the bundle's "
    "native wheels and bytecode are built for that exact Python version.",
)
STREAM_LIST = (
    "IAM5[Resource::*]",
    "dynamodb:ListStreams (added by the DynamoDB event source) supports no resource-level "
    "permissions; the stream itself is granted by ARN. X-Ray's actions likewise.",
)


def acknowledge(construct: IConstruct, rule: str, reason: str) -> None:
    Validations.of(construct).acknowledge(Acknowledgment(id=PREFIX + rule, reason=reason))


def acknowledge_service(service: AcknowledgedService) -> None:
    for name, function in service.functions.functions.items():
        # The authorizer reads no task data: it only checks tokens.
        bodies = None if function is service.authorizer_function else "reads and writes"
        acknowledge_function(service, name, function, XRAY, bodies=bodies)
    _acknowledge_routed_models(service)
    bucket = service.storage.bucket
    acknowledge(
        bucket,
        "S1",
        "Only this service's function roles read and write this bucket (large task bodies, expired "
        "by a lifecycle rule); CloudTrail data events are the audit trail, not a second log bucket.",
    )
    if isinstance(service.api, AgentFunctionUrl):
        _acknowledge_function_url(service.api)
    elif isinstance(service.api, AgentHttpApi):
        _acknowledge_http_api(service, service.api)
    else:
        _acknowledge_rest_api(service, service.api)


ROUTED_MODEL = (
    "A cross-region inference profile runs its foundation model in whichever of the profile's "
    "destination regions Bedrock picks, and AWS changes those regions: the model's ARN names "
    "any region, and the statement's bedrock:InferenceProfileArn condition limits it to calls "
    "through that profile (granted by ARN in the stack's region)."
)


def _acknowledge_routed_models(service: AcknowledgedService) -> None:
    worker = service.functions.functions["Worker"]
    for model in service.models:
        if model.profile is None:
            continue  # a foundation model called in the stack's region is granted by its exact ARN
        # As cdk-nag names the resource: the partition's reference in angle brackets.
        arn = f"arn:<AWS::Partition>:bedrock:{ROUTED_REGIONS}::foundation-model/{model.model_id}"
        acknowledge(
            worker.role or worker,
            f"IAM5[Resource::{arn}]",
            ROUTED_MODEL,
        )


PUBLIC = (
    "A public document (agent card, push JWKS, health check, docs page or index): A2A clients "
    "read the card before they can authenticate, and none of these reveals task data."
)


def _acknowledge_rest_api(service: AcknowledgedService, api: AgentApi) -> None:
    rest_api = api.rest_api
    acknowledge(
        rest_api,
        "APIG2",
        "The app validates every request: JSON-RPC requires its errors as HTTP 200 JSON-RPC "
        "responses echoing the request id, which API Gateway's request validation (HTTP 400) breaks.",
    )
    acknowledge(
        rest_api.deployment_stage,
        "APIG6",
        "Access logs record every request; execution logs need the account-wide API Gateway "
        "CloudWatch role, which one application stack must not own (cloud_watch_role=False).",
    )
    if api.web_acl_arn is None:
        acknowledge(
            rest_api.deployment_stage,
            "APIG3",
            "WAF is optional (web_acl_arn) because it costs per ACL and per request; the stage "
            "throttles every method.",
        )
    for method in api.public_methods:
        acknowledge(method, "APIG4", PUBLIC)
        acknowledge(method, "COG4", PUBLIC)
    rules, reason = _PROTECTED[service.auth]
    for method in api.protected_methods:
        for rule in rules:
            acknowledge(method, rule, reason)


def _acknowledge_http_api(service: AcknowledgedService, api: AgentHttpApi) -> None:
    # COG4 concerns REST methods only; API Gateway authorizes JWT and IAM routes itself.
    for route in api.public_routes:
        acknowledge(route, "APIG4", PUBLIC)
    rules, reason = _PROTECTED[service.auth]
    if "APIG4" in rules:
        for route in api.protected_routes:
            acknowledge(route, "APIG4", reason)


def _acknowledge_function_url(api: AgentFunctionUrl) -> None:
    # A function URL has no methods or stage for the API Gateway rules; only CloudFront is checked.
    edge = api.edge
    if edge is None:
        return
    distribution = edge.distribution
    acknowledge(
        distribution,
        "CFR1",
        "An A2A agent answers callers wherever they are; which countries to refuse is the deployer's "
        "call (and the web ACL can match on country). Every request is authenticated by the app.",
    )
    acknowledge(
        distribution,
        "CFR3",
        "Nothing is cached: every request CloudFront forwards reaches the API function, whose log group "
        "records it, and the web ACL samples requests; standard logs would need an ACL-enabled bucket.",
    )
    if edge.domain is None:
        acknowledge(
            distribution,
            "CFR4",
            "Without a custom domain CloudFront serves its *.cloudfront.net certificate, whose policy "
            "(TLSv1) cannot be changed; with custom_domain the distribution requires TLS 1.2 (2021).",
        )
    body_hash = edge.body_hash.lambda_
    acknowledge(
        body_hash,
        "L1",
        "Lambda@Edge runs a subset of Lambda's runtimes; Python 3.13 is the newest its documentation "
        "lists. The function is 40 lines of standard library (hashlib, base64, json).",
    )
    acknowledge(
        body_hash.role or body_hash,
        "IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
        "Lambda@Edge writes its logs in every region that serves a request (/aws/lambda/us-east-1.<name> "
        "there), which is what this managed policy allows; the role is created with the function in "
        "us-east-1 by CDK's EdgeFunction and grants nothing else.",
    )


# The findings each auth mode leaves on the methods that reach the agent, and why they stand.
_PROTECTED = {
    AuthMode.NONE: (
        ("APIG4", "COG4"),
        "Authentication was explicitly turned off (auth=AuthMode.NONE with "
        "allow_unauthenticated=True): the agent is public by the deployer's choice.",
    ),
    AuthMode.API_KEY: (
        ("APIG4", "COG4"),
        "Callers authenticate with API keys (auth=AuthMode.API_KEY): API Gateway requires a key "
        "of this API's usage plan on every method, throttles and meters each key.",
    ),
    AuthMode.JWT: (
        ("COG4",),
        "Callers authenticate with JWTs from the deployer's OIDC issuer (auth=AuthMode.JWT), "
        "checked by a Lambda TOKEN authorizer; the issuer need not be a Cognito user pool.",
    ),
    AuthMode.IAM: (
        ("COG4",),
        "Callers authenticate with AWS Signature Version 4 (auth=AuthMode.IAM): API Gateway "
        "checks each request against IAM, where execute-api:Invoke is granted per principal.",
    ),
}


def acknowledge_push(service: AcknowledgedService) -> None:
    assert service.push_function is not None
    assert service.push_failures is not None
    assert service.push_dead_letters is not None
    acknowledge_function(service, "Push", service.push_function, STREAM_LIST, bodies="reads")
    acknowledge(
        service.push_failures,
        "SQS3",
        "This queue is itself a dead-letter destination: the push stream mapping's on-failure "
        "destination, where records the mapping gave up on are kept 14 days for inspection.",
    )
    acknowledge(
        service.push_dead_letters,
        "SQS3",
        "This queue is itself a dead-letter queue: the push function sends it each notification "
        "it could not deliver, with what a replay needs, kept 14 days.",
    )


def acknowledge_function(
    service: AcknowledgedService,
    name: str,
    function: lambda_.Function,
    wildcard: tuple[str, str],
    bodies: str | None = "reads and writes",
) -> None:
    role = function.role or function
    if function.runtime.name != latest_python().name:
        acknowledge(function, *RUNTIME)
    acknowledge(role, *wildcard)
    if bodies is None:
        return
    bucket = _logical_id(service.storage.bucket.node.default_child)
    acknowledge(
        role,
        f"IAM5[Resource::<{bucket}.Arn>/tasks/*]",
        f"The {name} function {bodies} large task bodies, one object per commit under the tasks/ "
        "prefix, keyed by task id and a random suffix: the keys cannot be known in advance.",
    )


def _logical_id(element: IConstruct | None) -> str:
    assert isinstance(element, CfnElement)
    return str(Stack.of(element).get_logical_id(element))


def acknowledge_long_turns(service: AcknowledgedService, worker: LongTurnWorker) -> None:
    """The long-turn worker's findings (`a2a_core.cdk.long_worker`), each where it arises."""
    bucket = _logical_id(service.storage.bucket.node.default_child)
    acknowledge(
        worker.task_role,
        f"IAM5[Resource::<{bucket}.Arn>/tasks/*]",
        "The long-turn worker reads and writes large task bodies as the Lambda worker does: one object "
        "per commit under the tasks/ prefix, keyed by task id and a random suffix.",
    )
    for model in service.models:
        if model.profile is not None:
            arn = f"arn:<AWS::Partition>:bedrock:{ROUTED_REGIONS}::foundation-model/{model.model_id}"
            acknowledge(worker.task_role, f"IAM5[Resource::{arn}]", ROUTED_MODEL)
    acknowledge(
        worker.execution_role,
        "IAM5[Resource::*]",
        "ecr:GetAuthorizationToken supports no resource-level permissions (added by CDK for the image's "
        "pull); the image's repository and the log group are granted by ARN.",
    )
    cluster = _logical_id(worker.cluster.node.default_child)
    worker_role = service.functions.functions["Worker"].role
    assert worker_role is not None
    acknowledge(
        worker_role,
        f"IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:task/<{cluster}>/*]",
        "RunTask tags the task it starts (the A2A task's id), which ECS authorizes as ecs:TagResource on "
        "the new task, whose id is random: any task of this cluster, and only when created by RunTask.",
    )
    if not worker.options.container_insights:
        acknowledge(
            worker.cluster,
            "ECS4",
            "Container Insights bills its metrics per task; the tasks' logs, the worker's own records and "
            "the LongTurnErrors alarm cover a long turn (LongTurnOptions.container_insights turns it on).",
        )
    acknowledge(
        worker.task_definition,
        "ECS2",
        "The environment is the worker Lambda's: resource names, settings and the ARNs of the worker's "
        "secrets, never their values (the worker reads those from Secrets Manager or SSM at start).",
    )
    if worker.options.vpc is None:
        acknowledge(
            worker.vpc,
            "VPC7",
            "This VPC holds only the long-turn worker's tasks (no inbound traffic); flow logs would bill "
            "per GB for every task's traffic to AWS. A deployer who needs them brings a VPC "
            "(LongTurnOptions.vpc).",
        )
