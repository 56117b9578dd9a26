"""`A2AService`: the whole agent service as one construct to drop into any CDK app.

The constructor is a sequence of named steps, in the order they create resources: read the
project, add the storage, queues and signing key, bundle the code and add the functions, connect
them (grants and event sources), put the front door before the API function, and watch it all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from a2a_core.aws.resources import LONG_TURN_RECEIVES, QUEUE
from a2a_core.bundling.plan import BundleOptions, BundlePlan
from a2a_core.cdk import acknowledgments, web_adapter
from a2a_core.cdk.alarms import ServiceAlarms
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT, function_codes
from a2a_core.cdk.checks import check_auth
from a2a_core.cdk.front_door import add_front_door
from a2a_core.cdk.function_url import AgentFunctionUrl
from a2a_core.cdk.functions import SIGNING_KEY_ENV, ServiceFunctions, service_environment
from a2a_core.cdk.long_worker import LongTurnWorker, lambda_turn_limit
from a2a_core.cdk.models import BedrockModel, model_statements
from a2a_core.cdk.options import (
    AuthMode,
    ConfigurationError,
    FrontDoor,
    FunctionOptions,
    StreamingMode,
    WorkerPackage,
)
from a2a_core.cdk.props import A2AServiceProps
from a2a_core.cdk.push import PUSH, PUSH_MAX_RECORD_AGE, add_push_function
from a2a_core.cdk.queues import RunQueues
from a2a_core.cdk.storage import TaskStorage
from a2a_core.project import find_project

__all__ = ["SIGNING_KEY_ENV", "A2AService"]


class A2AService(Construct):
    def __init__(self, scope: Construct, id: str, props: A2AServiceProps | None = None) -> None:
        """An A2A agent served from API Gateway (or a function URL), Lambda, DynamoDB, SQS and S3.

        ``props`` (`A2AServiceProps`) says what and how; by default the agent the project names
        in its ``[tool.a2a-serverless]`` table, behind a REST API with one API key. The worker's
        bundle carries the project's code and locked dependencies; every function's bundle the
        kit's code and what that function imports. Everything created is exposed as attributes.
        """
        super().__init__(scope, id)
        props = props or A2AServiceProps()
        self.props = props
        self.project = props.project or find_project()
        self.project.code_paths()  # a wrong `packages` fails the synth, bundled or not
        # The longest turn (the prop, else the project's; None: the worker function's timeout).
        self.max_turn_seconds = (
            props.max_turn_seconds
            if props.max_turn_seconds is not None
            else self.project.config.max_turn_seconds
        )
        self.auth = props.auth
        self.jwt = props.jwt
        self.streaming = props.streaming_mode
        self.front_door = props.front_door

        self._add_resources(props.retention_days, props.worker_function, props.dead_letter_function)
        self.code = props.code  # None: each function gets its own bundle
        self.functions = ServiceFunctions(
            self,
            "Functions",
            code=self._codes(),
            runtime=props.runtime,
            architecture=props.architecture,
            environment=service_environment(
                self.storage,
                self.queues,
                auth=props.auth,
                allow_unauthenticated=props.allow_unauthenticated,
                agent=self.project.agent,
                retention_days=props.retention_days,
                worker=props.worker_function,
                service_name=props.service_name,
                extra={**self.project.card_environment(), **(props.environment or {})},
            ),
            log_retention=props.log_retention,
            tracing=props.tracing,
        )
        self._add_functions(props)
        self._connect(props.worker_batch_size, props.worker_max_concurrency)
        self.long_turns = self._add_long_turns(props)
        self.api, self.api_keys = add_front_door(
            self,
            props.front_door,
            handler=self.api_function,
            invoked=self.api_alias,
            auth=props.auth,
            jwt=props.jwt,
            authorizer_function=self.authorizer_function,
            streaming=self.streaming,
            integration_timeout=props.api_options.timeout,
            key_names=props.key_names,
            api_key_limits=props.api_key_limits,
            throttling_rate_limit=props.throttling_rate_limit,
            throttling_burst_limit=props.throttling_burst_limit,
            log_retention=props.log_retention,
            custom_domain=props.custom_domain,
            web_acl_arn=props.web_acl_arn,
            edge=props.edge,
            tracing=props.tracing,
        )
        if "A2A_PUBLIC_URL" not in (props.environment or {}):
            # The function URL depends on the API function: the API derives its URL per request.
            skip = ("Api",) if props.front_door is FrontDoor.FUNCTION_URL else ()
            self.functions.set_environment("A2A_PUBLIC_URL", self.api.url, skip=skip)
        self._add_alarms(props.alarm_topic)
        self.push_function: lambda_.Function | None = None
        self.push_failures: sqs.Queue | None = None
        self.push_dead_letters: sqs.Queue | None = None
        acknowledgments.acknowledge_service(self)
        if self.long_turns is not None:
            acknowledgments.acknowledge_long_turns(self, self.long_turns)

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
        handler: str = "a2a_core.functions.push.handler.handler",
        options: FunctionOptions = PUSH,
        filters: Sequence[Mapping[str, Any]] | None = None,
        batch_size: int = 10,
        retry_attempts: int = 3,
        max_record_age: Duration = PUSH_MAX_RECORD_AGE,
        environment: Mapping[str, str] | None = None,
    ) -> lambda_.Function:
        """Add the push notification function on the table's stream (once), and turn push on.

        Only records matching ``filters`` invoke it (default: new commits in a state the notifier
        notifies, of tasks with a push config: `a2a_core.aws.event_filters`). A failing batch is
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
        long_turns = self.max_turn_seconds is not None and self.max_turn_seconds > lambda_turn_limit(
            worker.timeout
        )
        self.queues = RunQueues(
            self,
            "Queues",
            worker_timeout=worker.timeout,
            dead_letter_timeout=dead_letter.timeout,
            spec=replace(QUEUE, max_receive_count=LONG_TURN_RECEIVES) if long_turns else QUEUE,
        )
        self.signing_key = kms.Key(
            self,
            "PushSigningKey",
            description="Signs push notification JWTs (ES256); the private key never leaves KMS",
            key_spec=kms.KeySpec.ECC_NIST_P256,
            key_usage=kms.KeyUsage.SIGN_VERIFY,
            removal_policy=RemovalPolicy.RETAIN,
        )

    def _codes(self) -> Callable[[str], lambda_.Code]:
        """Each function's code: the given ``code`` for all, or its own bundle (what it imports)."""
        code = self.code
        if code is not None:
            return lambda _: code
        props = self.props
        codes = functools.partial(
            function_codes,
            self,
            worker_package=props.worker_package,
            python_version=props.python_version,
            architecture=props.architecture.name,
        )
        return codes(self._plan)

    @functools.cached_property
    def _plan(self) -> BundlePlan | None:
        """The bundles' plan; None when bundling is skipped (``a2a:skip_bundling``)."""
        props = self.props
        if _flag(self.node.try_get_context(SKIP_BUNDLING_CONTEXT)):
            return None
        options = BundleOptions(
            architecture=props.architecture.name,
            python_version=props.python_version,
            auth=props.auth.value,
            web_server=self.streaming is StreamingMode.RESPONSE_STREAM,
            include_boto3=props.include_boto3,
            bytecode=props.bytecode,
        )
        return BundlePlan(self.project, options)

    def _add_functions(self, props: A2AServiceProps) -> None:
        streams = self.streaming is StreamingMode.RESPONSE_STREAM
        layers = [web_adapter.layer(self, props.architecture, props.web_adapter_layer_arn)] if streams else []
        self.api_function = self.functions.add_api(
            props.api_options,
            streaming=self.streaming,
            signing_key_id=self.signing_key.key_id,
            layers=layers,
            snap_start=props.snap_start,
        )
        # What the front door invokes: the alias of the snapshotted versions under SnapStart.
        self.api_alias = self.functions.live_alias("Api") if props.snap_start else None
        # An HTTP API checks JWTs itself; the REST API needs a Lambda authorizer for them.
        self.authorizer_function = (
            self.functions.add_authorizer(self.jwt)
            if self.jwt is not None and self.front_door is FrontDoor.REST_API
            else None
        )
        self.worker_function = self.functions.add_worker(
            props.worker_function,
            image=props.worker_package is WorkerPackage.CONTAINER_IMAGE,
            environment=props.worker_environment,
            secrets=props.worker_secrets,
            snap_start=props.worker_snap_start,
            max_turn_seconds=self.max_turn_seconds,
        )
        # What the run queue invokes: the alias of the snapshotted versions under SnapStart.
        self.worker_alias = self.functions.live_alias("Worker") if props.worker_snap_start else None
        self.dead_letter_function = self.functions.add_dead_letter(props.dead_letter_function)

    def _connect(self, worker_batch_size: int, worker_max_concurrency: int) -> None:
        """What each function may do (least privilege), and what invokes the worker and DLQ functions."""
        self.storage.grant_task_log(self.api_function, write=True, delete=True, owner_index=True)
        self.storage.grant_task_log(self.worker_function, write=True)
        self.storage.grant_task_log(self.dead_letter_function, write=True)
        self.queues.queue.grant_send_messages(self.api_function)
        self.signing_key.grant(self.api_function, "kms:GetPublicKey")
        for statement in model_statements(self, self.props.models):
            self.worker_function.add_to_role_policy(statement)
        (self.worker_alias or self.worker_function).add_event_source(
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

    def _add_long_turns(self, props: A2AServiceProps) -> LongTurnWorker | None:
        """The long-turn worker on ECS Fargate, when turns may run longer than the Lambda worker
        allows (`a2a_core.cdk.long_worker`); None otherwise."""
        limit = self.max_turn_seconds
        if limit is None or limit <= lambda_turn_limit(props.worker_function.timeout):
            return None
        plan = self._plan
        worker = LongTurnWorker(
            self,
            "LongTurns",
            options=props.long_turns,
            bundle=plan.long_worker_bundle() if plan is not None else None,
            python_version=props.python_version,
            architecture=props.architecture,
            environment=self.functions.worker_environment,
            log_retention=props.log_retention,
        )
        self.functions.followers.append(worker.container.add_environment)
        worker.grant(
            self.storage,
            self.queues.queue,
            secrets=list(self.functions.worker_secrets.values()),
            statements=model_statements(self, props.models),
        )
        worker.launched_by(self.worker_function)
        return worker

    def _add_alarms(self, topic: sns.ITopic | None) -> None:
        self.alarms = ServiceAlarms(self, "Alarms", topic=topic)
        for name, function in self.functions.functions.items():
            self.alarms.watch_function(name, function)
        self.alarms.watch_dead_letters("DeadLetters", self.queues.dead_letters)
        self.alarms.watch_api(self.api.server_errors)
        if self.long_turns is not None:
            self.alarms.watch_long_turns(self.long_turns.failure_metric())

    @property
    def models(self) -> tuple[BedrockModel, ...]:
        """The Bedrock models the worker may call (``props.bedrock_models``)."""
        return self.props.models

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
