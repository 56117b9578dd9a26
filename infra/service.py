"""`A2AService`: the whole agent service as one construct to drop into any CDK app."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from a2a_core.aws.resources import PUSH_QUEUE
from infra import acknowledgments, web_adapter
from infra import auth as gateway_auth
from infra.alarms import ServiceAlarms
from infra.api import AgentApi
from infra.bundling import ROOT, SKIP_BUNDLING_CONTEXT, BundleSpec, service_code
from infra.functions import RUNTIME, ServiceFunctions
from infra.http_api import AgentHttpApi
from infra.options import (
    API_BUFFERED,
    API_STREAM,
    DEAD_LETTER,
    DEFAULT_API_KEY_LIMITS,
    WORKER,
    ApiKeyLimits,
    AuthMode,
    ConfigurationError,
    CustomDomain,
    FrontDoor,
    FunctionOptions,
    JwtIssuer,
    StreamingMode,
    check_agent,
    check_auth,
    check_front_door,
    check_limits,
)
from infra.queues import RunQueues
from infra.storage import LARGE_BODY_PREFIX, TaskStorage

# Read by the JWKS endpoint (API) and the push signer: the KMS key that signs push JWTs.
SIGNING_KEY_ENV = "A2A_PUSH_SIGNING_KEY_ID"
# Only a commit (a new `EVT#` item) can change a task's state; see a2a_core.aws.dynamodb_store.
EVENT_SORT_KEY_PREFIX = "EVT#"

# BatchGetItem: a task's older messages are read from exactly the commits that hold them.
_READ_ITEMS = ("dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query")
_WRITE_ITEMS = ("dynamodb:PutItem", "dynamodb:UpdateItem")
_READ_BODIES = ("s3:GetObject",)
_WRITE_BODIES = ("s3:PutObject", "s3:DeleteObject")
PUSH = FunctionOptions(memory_mb=256, timeout=Duration.seconds(60))
# Fetching the issuer's JWKS is bounded at 5 s; a verdict otherwise takes milliseconds.
AUTHORIZER = FunctionOptions(memory_mb=256, timeout=Duration.seconds(10))
DEFAULT_API_KEY = "default"
PUSH_MAX_RECORD_AGE = Duration.hours(1)
SQS_MAX_RETENTION = Duration.days(14)


class A2AService(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        agent: str,
        agent_packages: Sequence[str] = (),
        auth: AuthMode = AuthMode.API_KEY,
        allow_unauthenticated: bool = False,
        jwt: JwtIssuer | None = None,
        api_keys: Sequence[str] | None = None,
        api_key_limits: ApiKeyLimits | None = DEFAULT_API_KEY_LIMITS,
        streaming: StreamingMode = StreamingMode.BUFFERED,
        front_door: FrontDoor = FrontDoor.REST_API,
        architecture: lambda_.Architecture = lambda_.Architecture.ARM_64,
        api_function: FunctionOptions | None = None,
        worker_function: FunctionOptions = WORKER,
        dead_letter_function: FunctionOptions = DEAD_LETTER,
        worker_batch_size: int = 10,
        worker_max_concurrency: int = 10,
        retention_days: int = 30,
        log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
        throttling_rate_limit: float = 50,
        throttling_burst_limit: int = 100,
        alarm_topic: sns.ITopic | None = None,
        custom_domain: CustomDomain | None = None,
        web_acl_arn: str | None = None,
        environment: Mapping[str, str] | None = None,
        service_name: str = "a2a-serverless",
        include_boto3: bool = False,
        web_adapter_layer_arn: str | None = None,
        code: lambda_.Code | None = None,
    ) -> None:
        """An A2A agent served from API Gateway, Lambda, DynamoDB, SQS and S3.

        ``agent`` is the agent as ``package.module:attribute``; ``agent_packages`` are the
        directories of your own packages to bundle beside ``a2a_core`` (paths relative to the
        project root; their dependencies go in the ``aws`` extra). ``auth`` is how callers
        authenticate: ``AuthMode.API_KEY`` (default) creates a usage plan limiting each key to
        ``api_key_limits`` and one key per name in ``api_keys`` (default: one named
        ``default``; add more with ``add_api_key``); ``AuthMode.JWT`` trusts the issuer in
        ``jwt`` through a Lambda authorizer; ``AuthMode.IAM`` needs SigV4 from principals given
        ``grant_invoke``; ``AuthMode.NONE`` must be confirmed with
        ``allow_unauthenticated=True``. ``front_door`` is the REST API (default) or the cheaper
        HTTP API (JWT, IAM or none; buffered; no WAF). ``streaming`` picks buffered Mangum (default) or API
        Gateway response streaming through the Lambda Web Adapter. ``api_function``,
        ``worker_function`` and ``dead_letter_function`` set memory and timeout; the queue's
        visibility timeout and the worker's lease follow the worker's timeout. ``retention_days``
        is how long tasks are kept; ``alarm_topic`` receives every alarm; ``custom_domain`` serves
        the agent on your own name; ``web_acl_arn`` attaches a WAF web ACL; ``environment`` adds
        variables (the agent card's ``A2A_NAME``, ``A2A_SKILLS``, ...); ``code`` replaces the
        bundled asset. Everything created is exposed as attributes.
        """
        super().__init__(scope, id)
        key_names = tuple(api_keys if api_keys is not None else ())
        if api_keys is None and auth is AuthMode.API_KEY:
            key_names = (DEFAULT_API_KEY,)
        check_auth(auth, allow_unauthenticated, jwt, key_names, api_key_limits)
        check_front_door(front_door, auth, streaming, web_acl_arn)
        check_agent(agent, agent_packages, ROOT)
        api_options = api_function or (
            API_STREAM if streaming is StreamingMode.RESPONSE_STREAM else API_BUFFERED
        )
        check_limits(streaming, api_options, worker_batch_size, worker_max_concurrency, retention_days)
        self.auth = auth
        self.jwt = jwt
        self.streaming = streaming
        self.front_door = front_door

        self.storage = TaskStorage(self, "Storage", retention_days=retention_days)
        self.queues = RunQueues(
            self,
            "Queues",
            worker_timeout=worker_function.timeout,
            dead_letter_timeout=dead_letter_function.timeout,
        )
        self.signing_key = kms.Key(
            self,
            "PushSigningKey",
            description="Signs push notification JWTs (ES256); the private key never leaves KMS",
            key_spec=kms.KeySpec.ECC_NIST_P256,
            key_usage=kms.KeyUsage.SIGN_VERIFY,
            removal_policy=RemovalPolicy.RETAIN,
        )
        web_server = streaming is StreamingMode.RESPONSE_STREAM
        self.code = code or service_code(
            BundleSpec.for_function(
                architecture,
                RUNTIME,
                web_server=web_server,
                include_boto3=include_boto3,
                packages=tuple(agent_packages),
            ),
            skip=_flag(self.node.try_get_context(SKIP_BUNDLING_CONTEXT)),
        )
        self.functions = ServiceFunctions(
            self,
            "Functions",
            code=self.code,
            architecture=architecture,
            environment=self._environment(
                agent, retention_days, worker_function, service_name, allow_unauthenticated, environment
            ),
            log_retention=log_retention,
        )
        self.api_function = self._add_api_function(api_options, architecture, web_adapter_layer_arn)
        # An HTTP API checks JWTs itself; the REST API needs a Lambda authorizer for them.
        self.authorizer_function = (
            self._add_authorizer_function(jwt)
            if jwt is not None and front_door is FrontDoor.REST_API
            else None
        )
        self.worker_function = self.functions.add(
            "Worker",
            handler="functions.worker.handler.handler",
            options=worker_function,
            description="Runs the agent, one turn per SQS run operation",
        )
        self.dead_letter_function = self.functions.add(
            "DeadLetter",
            handler="functions.dlq.handler.handler",
            options=dead_letter_function,
            description="Fails the task of a run operation that reached the dead-letter queue",
        )
        self._grant_task_log(self.api_function, write=True, delete=True, context_index=True)
        self._grant_task_log(self.worker_function, write=True)
        self._grant_task_log(self.dead_letter_function, write=True)
        self.queues.queue.grant_send_messages(self.api_function)
        self.signing_key.grant(self.api_function, "kms:GetPublicKey")
        self.worker_function.add_event_source(
            sources.SqsEventSource(
                self.queues.queue,
                batch_size=worker_batch_size,
                max_concurrency=worker_max_concurrency,
                report_batch_item_failures=True,
            )
        )
        self.dead_letter_function.add_event_source(
            sources.SqsEventSource(
                self.queues.dead_letters, batch_size=10, max_concurrency=2, report_batch_item_failures=True
            )
        )

        self.api: AgentApi | AgentHttpApi
        self.api_keys: gateway_auth.ApiKeys | None = None
        if front_door is FrontDoor.HTTP_API:
            self.api = AgentHttpApi(
                self,
                "HttpApi",
                handler=self.api_function,
                auth_mode=auth,
                jwt=jwt,
                integration_timeout=api_options.timeout,
                throttling_rate_limit=throttling_rate_limit,
                throttling_burst_limit=throttling_burst_limit,
                log_retention=log_retention,
                custom_domain=custom_domain,
            )
        else:
            self.api = AgentApi(
                self,
                "Api",
                handler=self.api_function,
                streaming=streaming,
                auth_mode=auth,
                protected=gateway_auth.method_options(
                    auth,
                    gateway_auth.token_authorizer(self, self.authorizer_function, jwt.cache_ttl)
                    if self.authorizer_function is not None and jwt is not None
                    else None,
                ),
                integration_timeout=api_options.timeout,
                throttling_rate_limit=throttling_rate_limit,
                throttling_burst_limit=throttling_burst_limit,
                log_retention=log_retention,
                custom_domain=custom_domain,
                web_acl_arn=web_acl_arn,
            )
            if auth is AuthMode.API_KEY:
                self.api_keys = gateway_auth.ApiKeys(
                    self, "ApiKeys", rest_api=self.api.rest_api, limits=api_key_limits, names=key_names
                )
        if "A2A_PUBLIC_URL" not in (environment or {}):
            self.functions.set_environment("A2A_PUBLIC_URL", self.api.url)

        self.alarms = ServiceAlarms(self, "Alarms", topic=alarm_topic)
        for name, function in self.functions.functions.items():
            self.alarms.watch_function(name, function)
        self.alarms.watch_dead_letters("DeadLetters", self.queues.dead_letters)
        self.alarms.watch_api(self.api.server_errors)
        self.push_function: lambda_.Function | None = None
        self.push_failures: sqs.Queue | None = None
        self.push_dead_letters: sqs.Queue | None = None
        acknowledgments.acknowledge_service(self)

    def add_api_key(self, name: str) -> apigw.IApiKey:
        """Another caller's API key on the usage plan (``AuthMode.API_KEY``); its id is the
        owner of the caller's tasks."""
        if self.api_keys is None:
            raise ConfigurationError(f"add_api_key: auth is {self.auth}, not AuthMode.API_KEY")
        if name in self.api_keys.keys:
            raise ConfigurationError(f"add_api_key: a key named {name!r} exists already")
        check_auth(self.auth, False, None, [name], None)
        return self.api_keys.add(name)

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Let an IAM principal call the agent (``AuthMode.IAM``): ``execute-api:Invoke`` on
        every method of the stage; its ARN becomes the owner of its tasks."""
        if self.auth is not AuthMode.IAM:
            raise ConfigurationError(f"grant_invoke: auth is {self.auth}, not AuthMode.IAM")
        return iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["execute-api:Invoke"],
            resource_arns=[self.api.invoke_arn()],
        )

    @property
    def agent_url(self) -> str:
        return self.api.url

    @property
    def card_url(self) -> str:
        return f"{self.api.url}.well-known/agent.json"

    def add_push_function(
        self,
        *,
        handler: str = "functions.push.handler.handler",
        options: FunctionOptions = PUSH,
        filters: Sequence[Mapping[str, Any]] | None = None,
        batch_size: int = 10,
        retry_attempts: int = 3,
        max_record_age: Duration = PUSH_MAX_RECORD_AGE,
        environment: Mapping[str, str] | None = None,
    ) -> lambda_.Function:
        """Add the push notification function on the table's stream (once), and turn push on.

        Only records matching ``filters`` invoke it (default: new commits). A failing batch is
        bisected, each record retried at most ``retry_attempts`` times and for ``max_record_age``,
        then sent to the ``push_failures`` queue, so one bad record never blocks a shard.
        Notifications the function gives up on go to ``push_dead_letters``
        (``A2A_PUSH_DLQ_URL``). The function may read the task log and sign with the push key
        (``kms:Sign``); every function gets ``A2A_PUSH_ENABLED=true``.
        """
        if self.push_function is not None:
            raise ConfigurationError("add_push_function: the push function was already added")
        self.push_failures = self._dead_letter_queue("PushFailures", SQS_MAX_RETENTION)
        self.push_dead_letters = self._dead_letter_queue(
            "PushDeadLetters", Duration.seconds(PUSH_QUEUE.retention_seconds)
        )
        function = self.functions.add(
            "Push",
            handler=handler,
            options=options,
            description="Delivers push notifications for task changes from the table's stream",
            environment={
                **(environment or {}),
                SIGNING_KEY_ENV: self.signing_key.key_id,
                "A2A_PUSH_DLQ_URL": self.push_dead_letters.queue_url,
            },
        )
        self.functions.set_environment("A2A_PUSH_ENABLED", "true")
        self._grant_task_log(function, write=False)
        self.signing_key.grant(function, "kms:Sign")
        self.push_dead_letters.grant_send_messages(function)
        default_filter = {
            "eventName": lambda_.FilterRule.is_equal("INSERT"),
            "dynamodb": {
                "NewImage": {
                    self.storage.spec.sort_key: {"S": lambda_.FilterRule.begins_with(EVENT_SORT_KEY_PREFIX)}
                }
            },
        }
        function.add_event_source(
            sources.DynamoEventSource(
                self.storage.table,
                starting_position=lambda_.StartingPosition.LATEST,
                batch_size=batch_size,
                bisect_batch_on_error=True,
                retry_attempts=retry_attempts,
                max_record_age=max_record_age,
                on_failure=sources.SqsDlq(self.push_failures),
                report_batch_item_failures=True,
                filters=[lambda_.FilterCriteria.filter(f) for f in (filters or [default_filter])],
            )
        )
        self.alarms.watch_function("Push", function)
        self.alarms.watch_dead_letters("PushFailures", self.push_failures)
        self.alarms.watch_dead_letters("PushDeadLetters", self.push_dead_letters)
        self.push_function = function
        acknowledgments.acknowledge_push(self)
        return function

    def _dead_letter_queue(self, id: str, retention: Duration) -> sqs.Queue:
        return sqs.Queue(
            self,
            id,
            retention_period=retention,
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
        )

    def _environment(
        self,
        agent: str,
        retention_days: int,
        worker: FunctionOptions,
        service_name: str,
        allow_unauthenticated: bool,
        extra: Mapping[str, str] | None,
    ) -> dict[str, str]:
        owned = {
            "A2A_BACKEND": "aws",
            # The app refuses to start without auth unless the opt-out reaches it too.
            "A2A_AUTH_MODE": self.auth.value,
            "A2A_ALLOW_UNAUTHENTICATED": str(allow_unauthenticated).lower(),
            "A2A_AWS_REGION": Stack.of(self).region,
            "A2A_AGENT": agent,
            "A2A_TABLE_NAME": self.storage.table.table_name,
            "A2A_BUCKET_NAME": self.storage.bucket.bucket_name,
            "A2A_QUEUE_URL": self.queues.queue.queue_url,
            "A2A_DLQ_URL": self.queues.dead_letters.queue_url,
            "A2A_RETENTION_DAYS": str(retention_days),
            # A worker's claim on a turn lives as long as the worker may run.
            "A2A_LEASE_SECONDS": str(int(worker.timeout.to_seconds())),
            "POWERTOOLS_SERVICE_NAME": service_name,
        }
        clashes = sorted(set(owned) & set(extra or {}))
        if clashes:
            raise ConfigurationError(f"environment: {', '.join(clashes)} are set by A2AService itself")
        return {**(extra or {}), **owned}

    def _add_authorizer_function(self, jwt: JwtIssuer) -> lambda_.Function:
        return self.functions.add(
            "Authorizer",
            handler="functions.authorizer.handler.handler",
            options=AUTHORIZER,
            description="Checks bearer JWTs for API Gateway (issuer, audience, JWKS signature, expiry)",
            environment={
                "A2A_JWT_ISSUER": jwt.issuer,
                "A2A_JWT_AUDIENCE": jwt.audience,
                "A2A_JWT_JWKS_URL": jwt.jwks_url,
                "A2A_JWT_ALGORITHMS": json.dumps(list(jwt.algorithms)),
            },
        )

    def _add_api_function(
        self, options: FunctionOptions, architecture: lambda_.Architecture, layer_arn: str | None
    ) -> lambda_.Function:
        description = "A2A JSON-RPC API and agent card"
        signing_key = {SIGNING_KEY_ENV: self.signing_key.key_id}  # for the JWKS endpoint
        if self.streaming is StreamingMode.BUFFERED:
            return self.functions.add(
                "Api",
                handler="functions.api.handler.handler",
                options=options,
                description=description,
                environment=signing_key,
            )
        return self.functions.add(
            "Api",
            handler=web_adapter.HANDLER,
            options=options,
            description=f"{description} (response streaming)",
            layers=[web_adapter.layer(self, architecture, layer_arn)],
            environment={**signing_key, **web_adapter.ENVIRONMENT},
        )

    def _grant_task_log(
        self, function: lambda_.Function, *, write: bool, delete: bool = False, context_index: bool = False
    ) -> None:
        table_actions = [
            *_READ_ITEMS,
            *(_WRITE_ITEMS if write else ()),
            *(["dynamodb:DeleteItem"] if delete else []),
        ]
        function.add_to_role_policy(
            iam.PolicyStatement(actions=table_actions, resources=[self.storage.table.table_arn])
        )
        if context_index:
            function.add_to_role_policy(
                iam.PolicyStatement(actions=["dynamodb:Query"], resources=[self.storage.context_index_arn])
            )
        function.add_to_role_policy(
            iam.PolicyStatement(
                actions=[*_READ_BODIES, *(_WRITE_BODIES if write else ())],
                resources=[self.storage.bucket.arn_for_objects(f"{LARGE_BODY_PREFIX}*")],
            )
        )

    # Convenience names for what other stacks and tests reach for most.
    @property
    def table(self) -> dynamodb.Table:
        return self.storage.table

    @property
    def bucket(self) -> s3.Bucket:
        return self.storage.bucket

    @property
    def queue(self) -> sqs.Queue:
        return self.queues.queue

    @property
    def dead_letter_queue(self) -> sqs.Queue:
        return self.queues.dead_letters


def _flag(value: object) -> bool:
    return value is True or str(value).lower() in {"true", "1", "yes"}
