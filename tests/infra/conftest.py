"""One synthesized app per session, checked by cdk-nag exactly as `cdk synth` checks it.

``Default`` is the stack `infra.app` deploys (buffered, arm64, API keys, the echo agent this
repository's pyproject.toml names). ``Full`` turns every option on for a user's project: JWT auth,
response streaming, Python 3.14, x86_64, custom function options, alarm topic, custom domain, WAF,
extra environment and the push hook. ``Iam`` and ``Open`` are the other two auth
modes (SigV4, and none with the explicit opt-out). ``Http`` is the HTTP API front door (JWT,
custom domain, push). ``Url`` is the function URL front door (API keys checked by the app,
response streaming, push), ``UrlIam`` the same with SigV4 (buffered, one granted role),
``UrlEdge`` JWTs behind CloudFront with a WAF web ACL created in us-east-1 and a custom domain,
``UrlEdgeEu`` API keys behind CloudFront from eu-west-1 (its Lambda@Edge in a us-east-1 stack of
its own, an existing web ACL). Code is a placeholder (``a2a:skip_bundling``); `test_bundle.py`
bundles for real.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    # This repository's CDK app (infra/) and trace tool (function_trace/) are not installed.
    sys.path.insert(0, str(ROOT))

from aws_cdk import Duration, Environment, Stack, cx_api  # noqa: E402
from aws_cdk import aws_iam as iam_  # noqa: E402
from aws_cdk import aws_lambda as lambda_  # noqa: E402
from aws_cdk import aws_sns as sns  # noqa: E402
from aws_cdk.assertions import Template  # noqa: E402

from a2a_core.cdk import (  # noqa: E402
    A2AService,
    A2AServiceProps,
    A2AStack,
    AuthMode,
    CustomDomain,
    EdgeOptions,
    FrontDoor,
    FunctionOptions,
    JwtIssuer,
    StreamingMode,
)
from a2a_core.cdk.testing import checked_app  # noqa: E402
from a2a_core.project import Project, ProjectConfig  # noqa: E402

TOPIC_ARN = "arn:aws:sns:eu-west-1:123456789012:a2a-alarms"
WEB_ACL_ARN = "arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/a2a/0123"
CLOUDFRONT_ACL_ARN = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/a2a-edge/0123"
EDGE_DOMAIN = CustomDomain(
    domain_name="agent.example.com",
    certificate_arn="arn:aws:acm:us-east-1:123456789012:certificate/4567",
)
CALLER_ROLE = "arn:aws:iam::123456789012:role/agent-callers"
DOMAIN = CustomDomain(
    domain_name="agent.example.com",
    certificate_arn="arn:aws:acm:eu-west-1:123456789012:certificate/0123",
)
ISSUER = JwtIssuer(
    issuer="https://login.example.com/tenant/",
    audience="api://research-agent",
    jwks_url="https://login.example.com/tenant/keys",
    algorithms=("RS256",),
)


@pytest.fixture(scope="session")
def cdk_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cdk.out")


@pytest.fixture(scope="session")
def research_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A user's project whose agent lives in its own package (``Full`` deploys it)."""
    root = tmp_path_factory.mktemp("research")
    (root / "my_agents" / "research").mkdir(parents=True)
    for module in ("my_agents/__init__.py", "my_agents/research/__init__.py"):
        (root / module).write_text("")
    (root / "my_agents" / "research" / "agent.py").write_text("async def agent(context): ...\n")
    config = ProjectConfig(agent="my_agents.research.agent:agent", name="Research agent", version="2.1.0")
    return Project(root=root, config=config, distribution="research")


@pytest.fixture(scope="session")
def synthesized(cdk_out: Path, research_project: Project) -> tuple[cx_api.CloudAssembly, A2AService]:
    app = checked_app(cdk_out)
    A2AStack(app, "Default")  # the echo agent this repository's pyproject.toml names
    A2AStack(app, "Iam", A2AServiceProps(auth=AuthMode.IAM))
    A2AStack(app, "Open", A2AServiceProps(auth=AuthMode.NONE, allow_unauthenticated=True))
    A2AStack(
        app,
        "Http",
        A2AServiceProps(front_door=FrontDoor.HTTP_API, auth=AuthMode.JWT, jwt=ISSUER, custom_domain=DOMAIN),
        push=True,
    )
    A2AStack(app, "Url", A2AServiceProps(front_door=FrontDoor.FUNCTION_URL), push=True)
    url_iam = A2AStack(
        app,
        "UrlIam",
        A2AServiceProps(
            front_door=FrontDoor.FUNCTION_URL, auth=AuthMode.IAM, streaming=StreamingMode.BUFFERED
        ),
    )
    url_iam.service.grant_invoke(iam_.Role.from_role_arn(url_iam, "Caller", CALLER_ROLE))
    A2AStack(
        app,
        "UrlEdge",
        A2AServiceProps(
            front_door=FrontDoor.FUNCTION_URL,
            auth=AuthMode.JWT,
            jwt=ISSUER,
            edge=EdgeOptions(rate_limit_per_ip=500),
            custom_domain=EDGE_DOMAIN,
        ),
        env=Environment(account="123456789012", region="us-east-1"),
    )
    A2AStack(
        app,
        "UrlEdgeEu",
        A2AServiceProps(front_door=FrontDoor.FUNCTION_URL, edge=EdgeOptions(web_acl_arn=CLOUDFRONT_ACL_ARN)),
        env=Environment(account="123456789012", region="eu-west-1"),
    )
    full_stack = Stack(app, "Full")
    service = A2AService(
        full_stack,
        "Service",
        A2AServiceProps(
            project=research_project,
            auth=AuthMode.JWT,
            jwt=ISSUER,
            streaming=StreamingMode.RESPONSE_STREAM,
            runtime=lambda_.Runtime.PYTHON_3_14,
            architecture=lambda_.Architecture.X86_64,
            worker_function=FunctionOptions(memory_mb=1024, timeout=Duration.minutes(10)),
            worker_batch_size=5,
            worker_max_concurrency=20,
            retention_days=7,
            throttling_rate_limit=5,
            throttling_burst_limit=10,
            alarm_topic=sns.Topic.from_topic_arn(full_stack, "Alarms", TOPIC_ARN),
            custom_domain=DOMAIN,
            web_acl_arn=WEB_ACL_ARN,
            environment={
                "A2A_NAME": "Research agent",
                "A2A_PAGE_TOKEN_SECRET": "{{resolve:ssm:/agent/pages}}",
            },
        ),
    )
    service.add_push_function()
    return app.synth(), service  # synth raises if cdk-nag finds anything not acknowledged


@pytest.fixture(scope="session")
def full_service(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> A2AService:
    return synthesized[1]


@pytest.fixture(scope="session")
def default(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return Template.from_json(synthesized[0].get_stack_by_name("Default").template)


@pytest.fixture(scope="session")
def full(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return Template.from_json(synthesized[0].get_stack_by_name("Full").template)


@pytest.fixture(scope="session")
def iam(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return Template.from_json(synthesized[0].get_stack_by_name("Iam").template)


@pytest.fixture(scope="session")
def open_(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return Template.from_json(synthesized[0].get_stack_by_name("Open").template)


@pytest.fixture(scope="session")
def http(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return Template.from_json(synthesized[0].get_stack_by_name("Http").template)


@pytest.fixture(scope="session")
def topic_arn() -> str:
    return TOPIC_ARN


def _template(synthesized: tuple[cx_api.CloudAssembly, A2AService], stack: str) -> Template:
    return Template.from_json(synthesized[0].get_stack_by_name(stack).template)


@pytest.fixture(scope="session")
def url(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return _template(synthesized, "Url")


@pytest.fixture(scope="session")
def url_iam(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return _template(synthesized, "UrlIam")


@pytest.fixture(scope="session")
def url_edge(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return _template(synthesized, "UrlEdge")


@pytest.fixture(scope="session")
def url_edge_eu(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    return _template(synthesized, "UrlEdgeEu")


@pytest.fixture(scope="session")
def edge_lambda_stack(synthesized: tuple[cx_api.CloudAssembly, A2AService]) -> Template:
    """The us-east-1 stack CDK adds for UrlEdgeEu's Lambda@Edge function."""
    (stack,) = [s for s in synthesized[0].stacks if s.stack_name.startswith("edge-lambda-stack-")]
    return Template.from_json(stack.template)
