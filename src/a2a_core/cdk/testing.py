"""Helpers for testing stacks that use `A2AService` (this repository's tests use them too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aws_cdk import App, Validations
from aws_cdk.assertions import Template
from cdk_nag import AwsSolutionsChecks

from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.project import find_project


def checked_app(outdir: Path, *, skip_bundling: bool = True, cdk_json: Path | None = None) -> App:
    """An app with ``cdk_json``'s context (feature flags; default: the ``cdk.json`` beside the
    project's pyproject.toml, if any) and cdk-nag, as `cdk synth` runs it; ``skip_bundling`` swaps
    the Lambda bundles for a placeholder."""
    cdk_json = cdk_json or find_project().root / "cdk.json"
    context: dict[str, Any] = json.loads(cdk_json.read_text())["context"] if cdk_json.is_file() else {}
    # As the CLI does: construct paths and asset paths in each resource's metadata, and no stack
    # traces (of this machine's files) in the assembly's.
    context |= {
        "aws:cdk:enable-path-metadata": True,
        "aws:cdk:enable-asset-metadata": True,
        "aws:cdk:disable-stack-trace": True,
    }
    app = App(outdir=str(outdir), context={**context, SKIP_BUNDLING_CONTEXT: skip_bundling})
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def logical_id(template: Template, resource_type: str, path_suffix: str) -> str:
    """The logical id of the one ``resource_type`` whose construct path ends with ``path_suffix``."""
    found = [
        name
        for name, body in template.find_resources(resource_type).items()
        if body["Metadata"]["aws:cdk:path"].endswith(path_suffix)
    ]
    if len(found) != 1:
        raise LookupError(f"{len(found)} {resource_type} resources at *{path_suffix}: {found}")
    return found[0]


def resource(template: Template, resource_type: str, path_suffix: str) -> dict[str, Any]:
    return dict(template.find_resources(resource_type)[logical_id(template, resource_type, path_suffix)])


def properties(template: Template, resource_type: str, path_suffix: str) -> dict[str, Any]:
    return dict(resource(template, resource_type, path_suffix)["Properties"])


def routes(template: Template) -> dict[tuple[str, str], dict[str, Any]]:
    """Each REST API method's properties by (resource path, HTTP method), e.g. ``("/", "ANY")``."""
    found = {}
    for body in template.find_resources("AWS::ApiGateway::Method").values():
        # .../Api/Api/Default/.well-known/agent.json/GET/Resource -> /.well-known/agent.json
        parts = body["Metadata"]["aws:cdk:path"].split("/Default/", 1)[1].split("/")[:-2]
        found[("/" + "/".join(parts), body["Properties"]["HttpMethod"])] = dict(body["Properties"])
    return found
