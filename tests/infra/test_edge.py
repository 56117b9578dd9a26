"""CloudFront and WAF in front of the function URL: origin access control, the two edge functions,
no caching, every method and path to the app, the web ACL. ``url_edge`` (conftest) is JWT with a
web ACL created in us-east-1 and a custom domain; ``url_edge_eu`` deploys from eu-west-1 with an
existing web ACL, its Lambda@Edge function in CDK's us-east-1 ``edge_lambda_stack``."""

from __future__ import annotations

from typing import Any

from aws_cdk.assertions import Capture, Match, Template

from a2a_core.cdk.edge import BODY_HASH_SOURCE, VIEWER_REQUEST
from a2a_core.cdk.testing import logical_id, properties

# CloudFront's managed policies (fixed ids).
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac"
CLOUDFRONT_ACL_ARN = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/a2a-edge/0123"


def _distribution(template: Template) -> dict[str, Any]:
    (distribution,) = template.find_resources("AWS::CloudFront::Distribution").values()
    return dict(distribution["Properties"]["DistributionConfig"])


def test_the_url_takes_only_cloudfronts_signed_requests(url_edge: Template) -> None:
    (url,) = url_edge.find_resources("AWS::Lambda::Url").values()
    assert url["Properties"]["AuthType"] == "AWS_IAM"
    assert url["Properties"]["InvokeMode"] == "RESPONSE_STREAM"
    assert url_edge.find_resources("AWS::Lambda::Permission", {"Properties": {"Principal": "*"}}) == {}
    url_edge.has_resource_properties(
        "AWS::CloudFront::OriginAccessControl",
        {
            "OriginAccessControlConfig": {
                "OriginAccessControlOriginType": "lambda",
                "SigningBehavior": "always",
                "SigningProtocol": "sigv4",
            }
        },
    )
    distribution = logical_id(url_edge, "AWS::CloudFront::Distribution", "/Edge/Distribution/Resource")
    permissions = url_edge.find_resources(
        "AWS::Lambda::Permission", {"Properties": {"Principal": "cloudfront.amazonaws.com"}}
    )
    assert sorted(body["Properties"]["Action"] for body in permissions.values()) == [
        "lambda:InvokeFunction",
        "lambda:InvokeFunctionUrl",
    ]
    for body in permissions.values():
        assert {"Ref": distribution} in body["Properties"]["SourceArn"]["Fn::Join"][1]


def test_every_method_and_path_reaches_the_app_uncached(url_edge: Template) -> None:
    config = _distribution(url_edge)
    assert "CacheBehaviors" not in config  # one behaviour: every path, /message:send included
    behavior = config["DefaultCacheBehavior"]
    assert set(behavior["AllowedMethods"]) == {"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"}
    assert behavior["CachePolicyId"] == CACHING_DISABLED
    assert behavior["OriginRequestPolicyId"] == ALL_VIEWER_EXCEPT_HOST_HEADER
    assert behavior["ViewerProtocolPolicy"] == "https-only"
    (origin,) = config["Origins"]
    assert origin["CustomOriginConfig"]["OriginReadTimeout"] == 60  # > the app's 15 s keepalive
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"


def test_the_edge_functions_hash_the_body_and_move_the_bearer_token(url_edge: Template) -> None:
    behavior = _distribution(url_edge)["DefaultCacheBehavior"]
    viewer = logical_id(url_edge, "AWS::CloudFront::Function", "/Edge/ViewerRequest/Resource")
    assert behavior["FunctionAssociations"] == [
        {"EventType": "viewer-request", "FunctionARN": {"Fn::GetAtt": [viewer, "FunctionARN"]}}
    ]
    url_edge.has_resource_properties(
        "AWS::CloudFront::Function",
        {
            "FunctionCode": VIEWER_REQUEST,
            "FunctionConfig": Match.object_like({"Runtime": "cloudfront-js-2.0"}),
        },
    )
    (association,) = behavior["LambdaFunctionAssociations"]
    assert association["EventType"] == "origin-request"
    assert association["IncludeBody"] is True
    # In us-east-1 the edge function is part of this stack.
    url_edge.has_resource_properties(
        "AWS::Lambda::Function",
        {
            "Handler": "index.handler",
            "Runtime": "python3.13",
            "Code": {"ZipFile": BODY_HASH_SOURCE.read_text()},
            "Role": Match.any_value(),
        },
    )
    environment = properties(url_edge, "AWS::Lambda::Function", "/Functions/Api/Resource")["Environment"]
    assert environment["Variables"]["AWS_LWA_AUTHORIZATION_SOURCE"] == "x-a2a-authorization"


def test_a_web_acl_is_created_in_us_east_1(url_edge: Template) -> None:
    acl = logical_id(url_edge, "AWS::WAFv2::WebACL", "/Edge/WebAcl")
    assert _distribution(url_edge)["WebACLId"] == {"Fn::GetAtt": [acl, "Arn"]}
    rules = Capture()
    url_edge.has_resource_properties(
        "AWS::WAFv2::WebACL", {"Scope": "CLOUDFRONT", "DefaultAction": {"Allow": {}}, "Rules": rules}
    )
    by_name = {rule["Name"]: rule for rule in rules.as_array()}
    assert set(by_name) == {
        "AWSManagedRulesCommonRuleSet",
        "AWSManagedRulesKnownBadInputsRuleSet",
        "AWSManagedRulesAmazonIpReputationList",
        "RequestsPerIp",
    }
    common = by_name["AWSManagedRulesCommonRuleSet"]["Statement"]["ManagedRuleGroupStatement"]
    # A2A messages are JSON bodies over 8 KB: counted, never blocked.
    assert common["RuleActionOverrides"] == [{"Name": "SizeRestrictions_BODY", "ActionToUse": {"Count": {}}}]
    limit = by_name["RequestsPerIp"]
    assert limit["Action"] == {"Block": {}}
    assert limit["Statement"]["RateBasedStatement"] == {
        "AggregateKeyType": "IP",
        "Limit": 500,
        "EvaluationWindowSec": 300,
    }


def test_the_custom_domain_is_cloudfronts_with_tls_1_2(url_edge: Template) -> None:
    config = _distribution(url_edge)
    assert config["Aliases"] == ["agent.example.com"]
    assert config["ViewerCertificate"] == {
        "AcmCertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/4567",
        "MinimumProtocolVersion": "TLSv1.2_2021",
        "SslSupportMethod": "sni-only",
    }
    url_edge.has_output("AgentUrl", {"Value": "https://agent.example.com/"})
    distribution = logical_id(url_edge, "AWS::CloudFront::Distribution", "/Edge/Distribution/Resource")
    url_edge.has_output("CustomDomainTarget", {"Value": {"Fn::GetAtt": [distribution, "DomainName"]}})


def test_from_another_region_the_edge_function_lives_in_its_own_us_east_1_stack(
    url_edge_eu: Template, edge_lambda_stack: Template
) -> None:
    assert _distribution(url_edge_eu)["WebACLId"] == CLOUDFRONT_ACL_ARN
    url_edge_eu.resource_count_is("AWS::WAFv2::WebACL", 0)
    url_edge_eu.resource_count_is("Custom::CrossRegionStringParameterReader", 1)
    assert not [
        body
        for body in url_edge_eu.find_resources("AWS::Lambda::Function").values()
        if body["Properties"].get("Handler") == "index.handler"
    ]
    edge_lambda_stack.has_resource_properties(
        "AWS::Lambda::Function",
        {
            "Handler": "index.handler",
            "Runtime": "python3.13",
            "Code": {"ZipFile": BODY_HASH_SOURCE.read_text()},
        },
    )
    distribution = logical_id(url_edge_eu, "AWS::CloudFront::Distribution", "/Edge/Distribution/Resource")
    url_edge_eu.has_output(
        "AgentUrl",
        {"Value": {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution, "DomainName"]}, "/"]]}},
    )
    # API keys through CloudFront need no header moved: x-api-key is not the header OAC signs.
    environment = properties(url_edge_eu, "AWS::Lambda::Function", "/Functions/Api/Resource")["Environment"]
    assert "AWS_LWA_AUTHORIZATION_SOURCE" not in environment["Variables"]
