"""CloudFront and WAF in front of the function URL, which then accepts only CloudFront.

Origin access control (OAC) signs every request CloudFront sends the function URL (SigV4, auth
type ``AWS_IAM``), so the URL cannot be called around WAF. Three things make that work for an
A2A server, whose calls are POSTs that may carry a bearer token:

- Lambda takes no unsigned payload and CloudFront does not hash bodies, so a Lambda@Edge
  origin-request trigger adds ``x-amz-content-sha256`` (`a2a_core.cdk.edge_body_hash`; bodies up to
  1 MB, what CloudFront shows such a trigger). Lambda@Edge lives in us-east-1: CDK deploys it
  there from a stack with an explicit region.
- The signature takes the ``Authorization`` header, so a viewer-request CloudFront Function moves
  a bearer token to ``x-a2a-authorization`` (the Lambda Web Adapter moves it back) and records
  the host the client used in ``x-forwarded-host`` (the agent card's URL).
- Nothing is cached (every call is an RPC); every path and method goes to the app, and the
  origin read timeout (60 s) exceeds the app's keepalive interval, so streams stay open.

IAM callers cannot come through CloudFront (OAC replaces their signature with CloudFront's), and a
``CLOUDFRONT`` web ACL exists only in us-east-1; `a2a_core.cdk.options.check_function_url` refuses what
cannot work.
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Duration, Stack, Token
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from a2a_core.cdk.options import ConfigurationError, CustomDomain, EdgeOptions

BODY_HASH_SOURCE = Path(__file__).with_name("edge_body_hash.py")
# Lambda@Edge runs a subset of Lambda's runtimes, without environment variables or X-Ray.
EDGE_RUNTIME = lambda_.Runtime.PYTHON_3_13
ORIGIN_READ_TIMEOUT = Duration.seconds(60)  # the most CloudFront allows without a quota increase

VIEWER_REQUEST = """\
function handler(event) {
  var request = event.request;
  var headers = request.headers;
  headers['x-forwarded-host'] = { value: headers.host.value };
  if (headers.authorization) {
    headers['x-a2a-authorization'] = { value: headers.authorization.value };
    delete headers.authorization;
  }
  return request;
}
"""

_MANAGED_RULE_GROUPS = (
    # Rules of the common set that an A2A request legitimately trips: messages exceed 8 KB.
    ("AWSManagedRulesCommonRuleSet", ("SizeRestrictions_BODY",)),
    ("AWSManagedRulesKnownBadInputsRuleSet", ()),
    ("AWSManagedRulesAmazonIpReputationList", ()),
)


class AgentEdge(Construct):
    BEARER_HEADER = "x-a2a-authorization"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        function_url: lambda_.FunctionUrl,
        options: EdgeOptions,
        domain: CustomDomain | None = None,
    ) -> None:
        super().__init__(scope, id)
        region = Stack.of(self).region
        if Token.is_unresolved(region):
            raise ConfigurationError(
                "edge needs a stack with an explicit region (env=Environment(account=..., region=...)): "
                "its Lambda@Edge function is deployed to us-east-1 from there"
            )
        self.web_acl: wafv2.CfnWebACL | None = None
        self.web_acl_arn = options.web_acl_arn
        if self.web_acl_arn is None and options.waf:
            if region != "us-east-1":
                raise ConfigurationError(
                    f"edge: a web ACL for CloudFront can only be created in us-east-1 (this stack is in "
                    f"{region}): pass EdgeOptions(web_acl_arn=...) of one created there, deploy to "
                    "us-east-1, or EdgeOptions(waf=False)"
                )
            self.web_acl = _web_acl(self, options.rate_limit_per_ip)
            self.web_acl_arn = self.web_acl.attr_arn
        self.viewer_request = cloudfront.Function(
            self,
            "ViewerRequest",
            code=cloudfront.FunctionCode.from_inline(VIEWER_REQUEST),
            runtime=cloudfront.FunctionRuntime.JS_2_0,
            comment="a2a-serverless: bearer token out of the header OAC signs; the viewer's host",
        )
        self.body_hash = cloudfront.experimental.EdgeFunction(
            self,
            "BodyHash",
            runtime=EDGE_RUNTIME,
            handler="index.handler",
            code=lambda_.Code.from_inline(BODY_HASH_SOURCE.read_text()),
            memory_size=128,
            timeout=Duration.seconds(5),
            description="a2a-serverless: x-amz-content-sha256 for the function URL behind OAC",
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment="a2a-serverless agent (function URL origin with OAC)",
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.FunctionUrlOrigin.with_origin_access_control(
                    function_url, read_timeout=ORIGIN_READ_TIMEOUT, keepalive_timeout=ORIGIN_READ_TIMEOUT
                ),
                allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
                origin_request_policy=cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                function_associations=[
                    cloudfront.FunctionAssociation(
                        function=self.viewer_request, event_type=cloudfront.FunctionEventType.VIEWER_REQUEST
                    )
                ],
                edge_lambdas=[
                    cloudfront.EdgeLambda(
                        function_version=self.body_hash.current_version,
                        event_type=cloudfront.LambdaEdgeEventType.ORIGIN_REQUEST,
                        include_body=True,
                    )
                ],
            ),
            web_acl_id=self.web_acl_arn,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            price_class=options.price_class,
            domain_names=[domain.domain_name] if domain else None,
            certificate=acm.Certificate.from_certificate_arn(self, "Certificate", domain.certificate_arn)
            if domain
            else None,
            # Only a custom certificate has a choice: *.cloudfront.net's policy is fixed.
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 if domain else None,
        )
        self.domain = domain

    @property
    def url(self) -> str:
        if self.domain is not None:
            return f"https://{self.domain.domain_name}/"
        return f"https://{self.distribution.distribution_domain_name}/"

    @property
    def custom_domain_target(self) -> str | None:
        return self.distribution.distribution_domain_name if self.domain is not None else None


def _web_acl(scope: Construct, rate_limit_per_ip: int) -> wafv2.CfnWebACL:
    rules = [
        wafv2.CfnWebACL.RuleProperty(
            name=group,
            priority=priority,
            statement=wafv2.CfnWebACL.StatementProperty(
                managed_rule_group_statement=wafv2.CfnWebACL.ManagedRuleGroupStatementProperty(
                    vendor_name="AWS",
                    name=group,
                    rule_action_overrides=[
                        wafv2.CfnWebACL.RuleActionOverrideProperty(
                            name=rule, action_to_use=wafv2.CfnWebACL.RuleActionProperty(count={})
                        )
                        for rule in counted
                    ]
                    or None,
                )
            ),
            override_action=wafv2.CfnWebACL.OverrideActionProperty(none={}),
            visibility_config=_visibility(group),
        )
        for priority, (group, counted) in enumerate(_MANAGED_RULE_GROUPS)
    ]
    rules.append(
        wafv2.CfnWebACL.RuleProperty(
            name="RequestsPerIp",
            priority=len(rules),
            statement=wafv2.CfnWebACL.StatementProperty(
                rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                    aggregate_key_type="IP", limit=rate_limit_per_ip, evaluation_window_sec=300
                )
            ),
            action=wafv2.CfnWebACL.RuleActionProperty(block={}),
            visibility_config=_visibility("RequestsPerIp"),
        )
    )
    return wafv2.CfnWebACL(
        scope,
        "WebAcl",
        scope="CLOUDFRONT",
        default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
        rules=rules,
        visibility_config=_visibility("a2a-serverless"),
        description="a2a-serverless: AWS managed rules and a per-IP rate limit in front of the agent",
    )


def _visibility(name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
    return wafv2.CfnWebACL.VisibilityConfigProperty(
        cloud_watch_metrics_enabled=True, metric_name=name, sampled_requests_enabled=True
    )
