"""What the worker's model needs, granted to the worker alone: Bedrock models by ARN (an inference
profile with the foundation model it routes to, through it only), secrets by ARN (their values
never in the template), variables of its own. cdk-nag checks every stack as `cdk synth` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import Stack, cx_api
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm
from aws_cdk.assertions import Template

from a2a_core.cdk import A2AService, A2AServiceProps, ConfigurationError
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.cdk.testing import checked_app, properties
from support import missing_prerequisite

REPO = Path(__file__).resolve().parents[2]
PROFILE = "us.anthropic.claude-sonnet-4-20250514-v1:0"
GLOBAL_PROFILE = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
FOUNDATION = "anthropic.claude-3-haiku-20240307-v1:0"
INVOKE = ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]
OPENAI_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:openai-api-key-AbCdEf"
MISTRAL_ARN = "arn:aws:ssm:eu-west-1:123456789012:parameter/agent/mistral-key"
SECRET_NAMES = ("OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY")


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> cx_api.CloudAssembly:
    app = checked_app(tmp_path_factory.mktemp("cdk.out"))
    stack = Stack(app, "Models")
    key = kms.Key.from_key_arn(
        stack, "KeysKey", "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    )
    A2AService(
        stack,
        "Service",
        A2AServiceProps(
            bedrock_models=[PROFILE, FOUNDATION, GLOBAL_PROFILE, PROFILE],  # once is enough
            worker_environment={"OPENAI_MODEL": "gpt-5-mini"},
            worker_secrets={
                "OPENAI_API_KEY": secretsmanager.Secret.from_secret_complete_arn(stack, "OpenAi", OPENAI_ARN),
                "GEMINI_API_KEY": secretsmanager.Secret.from_secret_name_v2(
                    stack, "Gemini", "gemini-api-key"
                ),
                "ANTHROPIC_API_KEY": ssm.StringParameter.from_secure_string_parameter_attributes(
                    stack, "Anthropic", parameter_name="/agent/anthropic-key", encryption_key=key
                ),
                # As strings: a secret's name, a parameter's ARN.
                "GROQ_API_KEY": "groq-api-key",
                "MISTRAL_API_KEY": MISTRAL_ARN,
            },
        ),
    )
    A2AService(Stack(app, "Plain"), "Service")  # no model, no secret
    return app.synth()  # raises if cdk-nag finds anything not acknowledged


@pytest.fixture(scope="module")
def models(synthesized: cx_api.CloudAssembly) -> Template:
    return Template.from_json(synthesized.get_stack_by_name("Models").template)


@pytest.fixture(scope="module")
def plain(synthesized: cx_api.CloudAssembly) -> Template:
    return Template.from_json(synthesized.get_stack_by_name("Plain").template)


def _statements(template: Template, function: str) -> list[dict[str, Any]]:
    path = f"/Functions/{function}Role/DefaultPolicy/Resource"
    return list(properties(template, "AWS::IAM::Policy", path)["PolicyDocument"]["Statement"])


def _bedrock(template: Template, function: str) -> list[dict[str, Any]]:
    return [s for s in _statements(template, function) if "bedrock" in json.dumps(s["Action"])]


def _text(value: Any) -> Any:
    """A resource as text: ``{"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ...]]}`` ->
    ``arn:${AWS::Partition}:...``; lists and conditions element by element."""
    if isinstance(value, list):
        return [_text(v) for v in value]
    if isinstance(value, dict) and "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(_text(part) for part in parts)
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return "${" + value["Ref"] + "}"
    if isinstance(value, dict):
        return {key: _text(v) for key, v in value.items()}
    return value


def _profile(profile: str) -> str:
    return f"arn:${{AWS::Partition}}:bedrock:${{AWS::Region}}:${{AWS::AccountId}}:inference-profile/{profile}"


def _model(model_id: str, region: str = "${AWS::Region}") -> str:
    return f"arn:${{AWS::Partition}}:bedrock:{region}::foundation-model/{model_id}"


def test_the_worker_may_invoke_its_models_by_arn_and_a_profiles_model_only_through_it(
    models: Template,
) -> None:
    direct, *routed = _bedrock(models, "Worker")
    assert direct["Effect"] == "Allow"
    assert sorted(direct["Action"]) == INVOKE
    assert sorted(_text(direct["Resource"])) == sorted(
        [_model(FOUNDATION), _profile(PROFILE), _profile(GLOBAL_PROFILE)]
    )
    assert "Condition" not in direct
    # Each profile's foundation model, in whichever region the profile routes to, through it only.
    assert [(sorted(s["Action"]), _text(s["Resource"]), _text(s["Condition"])) for s in routed] == [
        (INVOKE, _model(model_id, "*"), {"StringEquals": {"bedrock:InferenceProfileArn": _profile(profile)}})
        for profile, model_id in ((PROFILE, PROFILE[3:]), (GLOBAL_PROFILE, GLOBAL_PROFILE[7:]))
    ]


def test_no_bedrock_grant_names_a_wildcard_model_or_reaches_another_function(
    models: Template, plain: Template
) -> None:
    for statement in _bedrock(models, "Worker"):
        resources = (
            statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        )
        for resource in resources:
            assert resource != "*"
            parts = resource["Fn::Join"][1]
            assert not parts[-1].endswith("*")  # the model or profile is named, never a pattern
    for name in ("Api", "DeadLetter"):
        assert _bedrock(models, name) == []
    assert _bedrock(plain, "Worker") == []  # no model named, no Bedrock


def _variables(template: Template, function: str) -> dict[str, Any]:
    path = f"/Functions/{function}/Resource"
    return dict(properties(template, "AWS::Lambda::Function", path)["Environment"]["Variables"])


def test_the_worker_alone_gets_its_variables_and_where_its_secrets_are(models: Template) -> None:
    worker = _variables(models, "Worker")
    assert worker["OPENAI_MODEL"] == "gpt-5-mini"
    where = worker["A2A_WORKER_SECRETS"]
    rendered = json.dumps(where)
    assert OPENAI_ARN in rendered
    assert "gemini-api-key" in rendered  # imported by name: found by its name
    assert "parameter/agent/anthropic-key" in rendered
    assert "groq-api-key" in rendered
    assert MISTRAL_ARN in rendered
    for name in ("Api", "DeadLetter"):
        variables = _variables(models, name)
        assert not {"A2A_WORKER_SECRETS", "OPENAI_MODEL", *SECRET_NAMES} & set(variables)
        assert OPENAI_ARN not in json.dumps(variables)
        assert "gemini-api-key" not in json.dumps(variables)
    # The secrets' names are variables of no function: the worker sets them from the ARNs.
    assert not set(SECRET_NAMES) & set(worker)


def test_the_worker_alone_may_read_its_secrets_each_by_arn(models: Template) -> None:
    reads = [s for s in _statements(models, "Worker") if "secretsmanager" in json.dumps(s["Action"])]
    (read,) = reads  # one statement for the secrets
    assert sorted(read["Action"]) == ["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"]
    named = "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:"
    assert sorted(_text(read["Resource"])) == sorted(
        [OPENAI_ARN, f"{named}gemini-api-key-??????", f"{named}groq-api-key-??????"]
    )
    ssm_reads = [s for s in _statements(models, "Worker") if "ssm:" in json.dumps(s["Action"])]
    resources = json.dumps([s["Resource"] for s in ssm_reads])
    assert "parameter/agent/anthropic-key" in resources
    assert MISTRAL_ARN in resources
    decrypt = [s for s in _statements(models, "Worker") if "kms:Decrypt" in json.dumps(s["Action"])]
    assert [s["Resource"] for s in decrypt] == [
        "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    ]
    for name in ("Api", "DeadLetter"):
        granted = json.dumps(_statements(models, name))
        for action in ("secretsmanager:", "ssm:", "kms:Decrypt"):
            assert action not in granted


@pytest.mark.parametrize(
    "model",
    [
        "",
        "*",
        "anthropic.*",
        "claude",
        "us.",
        "us.claude",
        "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0",
        " anthropic.claude-3-haiku-20240307-v1:0",
        "Anthropic.claude-3-haiku",
    ],
)
def test_a_malformed_model_id_is_refused_naming_it(model: str) -> None:
    with pytest.raises(ConfigurationError, match=r"bedrock_models: .* (is not a Bedrock model id|names the)"):
        A2AServiceProps(bedrock_models=[model])


def test_a_single_string_is_refused_rather_than_read_as_its_letters() -> None:
    with pytest.raises(ConfigurationError, match="a sequence of model ids"):
        A2AServiceProps(bedrock_models=FOUNDATION)


@pytest.mark.parametrize(
    ("props", "refused"),
    [
        ({"worker_environment": {"AWS_REGION": "eu-west-1"}}, "Lambda reserves"),
        ({"worker_environment": {"1KEY": "x"}}, "cannot name a variable"),
        ({"worker_environment": {"A2A_AGENT": "x:y"}}, "set by A2AService itself"),
        ({"worker_secrets": {"AWS_SECRET_ACCESS_KEY": None}}, "Lambda reserves"),
        ({"worker_secrets": {"A2A_PAGE_TOKEN_SECRET": None}}, "the kit's settings"),
        ({"worker_environment": {"KEY": "x"}, "worker_secrets": {"KEY": None}}, "both in"),
        ({"worker_secrets": {"KEY": "arn:aws:s3:::bucket/key"}}, "names no secret"),
        ({"worker_secrets": {"KEY": "a key with spaces"}}, "names no secret"),
    ],
)
def test_worker_variables_that_cannot_work_are_refused(props: dict[str, Any], refused: str) -> None:
    stack = Stack()
    secret = secretsmanager.Secret.from_secret_complete_arn(stack, "Key", OPENAI_ARN)
    if "worker_secrets" in props:
        given = props["worker_secrets"].items()
        props = {**props, "worker_secrets": {k: secret if v is None else v for k, v in given}}
    with pytest.raises(ConfigurationError, match=refused):
        A2AService(stack, "Service", A2AServiceProps(**props))


# --- the strands template's own app.py ------------------------------------------------------------

STRANDS = REPO / ".venv-frameworks" / "strands"


@pytest.fixture(scope="module")
def strands_app(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """The strands template's app.py, synthesized as `cdk synth` runs it (cdk-nag included) with
    the project's agent module for its MODEL: Strands' environment, and this one's CDK after it."""
    python = STRANDS / "bin" / "python"
    if not python.exists():
        missing_prerequisite(f"the strands environment ({STRANDS}): run `make setup`")
    project = tmp_path_factory.mktemp("strands") / "counter"
    init = [sys.executable, "-m", "a2a_core.cli", "init", str(project), "--template", "strands"]
    subprocess.run([*init, "--kit-source", str(REPO)], check=True, capture_output=True, timeout=60)  # noqa: S603
    outdir = project / "cdk.out"
    context = json.loads((project / "cdk.json").read_text())["context"]
    env = {
        **os.environ,
        "CDK_OUTDIR": str(outdir),
        # As the CLI passes it: the construct paths the assertions find resources by.
        "CDK_CONTEXT_JSON": json.dumps(
            {**context, SKIP_BUNDLING_CONTEXT: True, "aws:cdk:enable-path-metadata": True}
        ),
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    cdk = sysconfig.get_paths()["purelib"]  # aws-cdk-lib and cdk-nag, which Strands' lacks
    run = f"import sys, runpy; sys.path.append({cdk!r}); runpy.run_path('app.py', run_name='__main__')"
    result = subprocess.run(  # noqa: S603
        [str(python), "-c", run], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]  # cdk-nag's findings fail it too
    return Template.from_json(json.loads((outdir / "Counter.template.json").read_text()))


def test_the_strands_templates_worker_may_invoke_its_default_model_and_nothing_else(
    strands_app: Template,
) -> None:
    direct, routed = _bedrock(strands_app, "Worker")
    assert _text(direct["Resource"]) == _profile(PROFILE)
    assert _text(routed["Resource"]) == _model(PROFILE[3:], "*")
    assert _text(routed["Condition"]) == {"StringEquals": {"bedrock:InferenceProfileArn": _profile(PROFILE)}}
    assert sorted(direct["Action"]) == sorted(routed["Action"]) == INVOKE
    for name in ("Api", "DeadLetter"):
        assert _bedrock(strands_app, name) == []
    granted = [r for s in _statements(strands_app, "Worker") for r in _list(s["Resource"])]
    assert "*" not in [r for s in _bedrock(strands_app, "Worker") for r in _list(s["Resource"])]
    assert granted.count("*") == 1  # X-Ray's, as on every function (acknowledged)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
