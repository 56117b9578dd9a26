"""`A2AService`: the whole agent service as one construct to drop into any CDK app.

The constructor is a sequence of named steps, in the order they create resources: check the
props, add the storage, queues and signing key, bundle the code and add the functions, connect
them (grants and event sources), put the front door before the API function, and watch it all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aws_cdk import Duration, RemovalPolicy
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

from infra import acknowledgments, web_adapter
from infra.alarms import ServiceAlarms
from infra.bundling import ROOT, SKIP_BUNDLING_CONTEXT, function_codes
from infra.front_door import add_front_door
from infra.function_url import AgentFunctionUrl
from infra.functions import RUNTIME, SIGNING_KEY_ENV, ServiceFunctions, service_environment
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
    EdgeOptions,
    FrontDoor,
    FunctionOptions,
    JwtIssuer,
    StreamingMode,
    check_agent,
    check_auth,
    check_front_door,
    check_limits,
)
from infra.push import PUSH, PUSH_MAX_RECORD_AGE, add_push_function
from infra.queues import RunQueues
from infra.storage import TaskStorage

__all__ = ["SIGNING_KEY_ENV", "A2AService"]

DEFAULT_API_KEY = "default"


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
        streaming: StreamingMode | None = None,
        front_door: FrontDoor = FrontDoor.REST_API,
        edge: EdgeOptions | None = None,
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
        HTTP API (JWT, IAM or none; buffered; no WAF) or a Lambda function URL (no charge per request;
        the app checks API keys and JWTs itself; ``edge`` adds CloudFront and WAF). ``streaming``
        picks buffered Mangum (the API Gateway default) or response streaming through the Lambda Web
        Adapter (the function URL default). ``api_function``,
        ``worker_function`` and ``dead_letter_function`` set memory and timeout; the queue's
        visibility timeout and the worker's lease follow the worker's timeout. ``retention_days``
        is how long tasks are kept; ``alarm_topic`` receives every alarm; ``custom_domain`` serves
        the agent on your own name; ``web_acl_arn`` attaches a WAF web ACL; ``environment`` adds
        variables (the agent card's ``A2A_NAME``, ``A2A_SKILLS``, ...); ``code`` is one asset
        for every function instead of each function's own bundle (only what it imports).
        Everything created is exposed as attributes.
        """
        super().__init__(scope, id)
        key_names = tuple(api_keys if api_keys is not None else ())
        if api_keys is None and auth is AuthMode.API_KEY and front_door is FrontDoor.REST_API:
            key_names = (DEFAULT_API_KEY,)
        if streaming is None:
            function_url = front_door is FrontDoor.FUNCTION_URL
            streaming = StreamingMode.RESPONSE_STREAM if function_url else StreamingMode.BUFFERED
        check_auth(auth, allow_unauthenticated, jwt, key_names, api_key_limits)
        check_front_door(
            front_door,
            auth,
            streaming,
            web_acl_arn,
            edge=edge,
            custom_domain=custom_domain,
            api_keys=key_names,
        )
        check_agent(agent, agent_packages, ROOT)
        api_options = api_function or (
            API_STREAM if streaming is StreamingMode.RESPONSE_STREAM else API_BUFFERED
        )
        check_limits(streaming, api_options, worker_batch_size, worker_max_concurrency, retention_days)
        self.auth = auth
        self.jwt = jwt
        self.streaming = streaming
        self.front_door = front_door

        self._add_resources(retention_days, worker_function, dead_letter_function)
        self.code = code  # None: each function gets its own bundle
        self.functions = ServiceFunctions(
            self,
            "Functions",
            code=self._codes(architecture, include_boto3, agent_packages),
            architecture=architecture,
            environment=service_environment(
                self.storage,
                self.queues,
                auth=auth,
                allow_unauthenticated=allow_unauthenticated,
                agent=agent,
                retention_days=retention_days,
                worker=worker_function,
                service_name=service_name,
                extra=environment,
            ),
            log_retention=log_retention,
        )
        self._add_functions(
            api_options, architecture, web_adapter_layer_arn, worker_function, dead_letter_function
        )
        self._connect(worker_batch_size, worker_max_concurrency)
        self.api, self.api_keys = add_front_door(
            self,
            front_door,
            handler=self.api_function,
            auth=auth,
            jwt=jwt,
            authorizer_function=self.authorizer_function,
            streaming=streaming,
            integration_timeout=api_options.timeout,
            key_names=key_names,
            api_key_limits=api_key_limits,
            throttling_rate_limit=throttling_rate_limit,
            throttling_burst_limit=throttling_burst_limit,
            log_retention=log_retention,
            custom_domain=custom_domain,
            web_acl_arn=web_acl_arn,
            edge=edge,
        )
        if "A2A_PUBLIC_URL" not in (environment or {}):
            # The function URL depends on the API function: the API derives its URL per request.
            skip = ("Api",) if front_door is FrontDoor.FUNCTION_URL else ()
            self.functions.set_environment("A2A_PUBLIC_URL", self.api.url, skip=skip)
        self._add_alarms(alarm_topic)
        self.push_function: lambda_.Function | None = None
        self.push_failures: sqs.Queue | None = None
        self.push_dead_letters: sqs.Queue | None = None
        acknowledgments.acknowledge_service(self)

    def add_api_key(self, name: str) -> apigw.IApiKey:
        """Another caller's API key on the usage plan (``AuthMode.API_KEY``); its id is the
        owner of the caller's tasks."""
        if self.front_door is FrontDoor.FUNCTION_URL:
            raise ConfigurationError("add_api_key: behind a function URL, run `a2a-serverless keys create`")
        if self.api_keys is None:
            raise ConfigurationError(f"add_api_key: auth is {self.auth}, not AuthMode.API_KEY")
        if name in self.api_keys.keys:
            raise ConfigurationError(f"add_api_key: a key named {name!r} exists already")
        check_auth(self.auth, False, None, [name], None)
        return self.api_keys.add(name)

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Let an IAM principal call the agent (``AuthMode.IAM``): ``execute-api:Invoke`` on
        every method of the stage (a function URL: ``lambda:InvokeFunctionUrl`` and
        ``lambda:InvokeFunction`` through it); its ARN becomes the owner of its tasks."""
        if self.auth is not AuthMode.IAM:
            raise ConfigurationError(f"grant_invoke: auth is {self.auth}, not AuthMode.IAM")
        if isinstance(self.api, AgentFunctionUrl):
            return self.api.grant_invoke(grantee)
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
        added = add_push_function(
            self,
            functions=self.functions,
            storage=self.storage,
            signing_key=self.signing_key,
            alarms=self.alarms,
            handler=handler,
            options=options,
            filters=filters,
            batch_size=batch_size,
            retry_attempts=retry_attempts,
            max_record_age=max_record_age,
            environment=environment,
        )
        self.push_function, self.push_failures, self.push_dead_letters = added
        acknowledgments.acknowledge_push(self)
        return added.function

    # --- the constructor's steps, in the order they run -----------------------------------

    def _add_resources(
        self, retention_days: int, worker: FunctionOptions, dead_letter: FunctionOptions
    ) -> None:
        self.storage = TaskStorage(self, "Storage", retention_days=retention_days)
        self.queues = RunQueues(
            self, "Queues", worker_timeout=worker.timeout, dead_letter_timeout=dead_letter.timeout
        )
        self.signing_key = kms.Key(
            self,
            "PushSigningKey",
            description="Signs push notification JWTs (ES256); the private key never leaves KMS",
            key_spec=kms.KeySpec.ECC_NIST_P256,
            key_usage=kms.KeyUsage.SIGN_VERIFY,
            removal_policy=RemovalPolicy.RETAIN,
        )

    def _codes(
        self, architecture: lambda_.Architecture, include_boto3: bool, packages: Sequence[str]
    ) -> Callable[[str], lambda_.Code]:
        """Each function's code: the given ``code`` for all, or its own bundle (what it imports)."""
        code = self.code
        if code is not None:
            return lambda _: code
        return function_codes(
            architecture,
            RUNTIME,
            auth=self.auth.value,
            web_server=self.streaming is StreamingMode.RESPONSE_STREAM,
            include_boto3=include_boto3,
            packages=tuple(packages),
            skip=_flag(self.node.try_get_context(SKIP_BUNDLING_CONTEXT)),
        )

    def _add_functions(
        self,
        api_options: FunctionOptions,
        architecture: lambda_.Architecture,
        layer_arn: str | None,
        worker: FunctionOptions,
        dead_letter: FunctionOptions,
    ) -> None:
        streams = self.streaming is StreamingMode.RESPONSE_STREAM
        self.api_function = self.functions.add_api(
            api_options,
            streaming=self.streaming,
            signing_key_id=self.signing_key.key_id,
            layers=[web_adapter.layer(self, architecture, layer_arn)] if streams else (),
        )
        # An HTTP API checks JWTs itself; the REST API needs a Lambda authorizer for them.
        self.authorizer_function = (
            self.functions.add_authorizer(self.jwt)
            if self.jwt is not None and self.front_door is FrontDoor.REST_API
            else None
        )
        self.worker_function = self.functions.add_worker(worker)
        self.dead_letter_function = self.functions.add_dead_letter(dead_letter)

    def _connect(self, worker_batch_size: int, worker_max_concurrency: int) -> None:
        """What each function may do (least privilege), and what invokes the worker and DLQ functions."""
        self.storage.grant_task_log(self.api_function, write=True, delete=True, owner_index=True)
        self.storage.grant_task_log(self.worker_function, write=True)
        self.storage.grant_task_log(self.dead_letter_function, write=True)
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

    def _add_alarms(self, topic: sns.ITopic | None) -> None:
        self.alarms = ServiceAlarms(self, "Alarms", topic=topic)
        for name, function in self.functions.functions.items():
            self.alarms.watch_function(name, function)
        self.alarms.watch_dead_letters("DeadLetters", self.queues.dead_letters)
        self.alarms.watch_api(self.api.server_errors)

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
