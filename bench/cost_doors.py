"""The front doors `aws_cost` prices: the event each feeds the API function (REST API and HTTP API
events from `lambda_events`; a function URL's, with an API key or with IAM), its price per
request, the app's auth behind it, and the access log its stage writes (now, and before the cost
cuts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from a2a_core.aws import access_logs
from lambda_events import http_event, rest_event

URL_DOMAIN = "4xmpl3urlid5nq7d2hjk6wvtbe3yzm0a.lambda-url.us-east-1.on.aws"
# The key the function URL run authenticates with (made by `generate_key` against moto's table).
URL_KEY: dict[str, str] = {}


def url_event(body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """A function URL event (payload 2.0, auth type NONE: no authorizer) carrying the API key."""
    event = http_event(body, request_id)
    event["routeKey"] = event["requestContext"]["routeKey"] = "$default"
    event["headers"] |= {"host": URL_DOMAIN, "x-api-key": URL_KEY["key"]}
    event["requestContext"] |= {
        "apiId": URL_DOMAIN.split(".")[0],
        "domainName": URL_DOMAIN,
        "domainPrefix": URL_DOMAIN.split(".")[0],
    }
    event["requestContext"].pop("authorizer", None)
    return event


def signed_url_event(body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """A function URL event with AWS_IAM auth: Lambda checked the SigV4 signature."""
    event = url_event(body, request_id)
    del event["headers"]["x-api-key"]
    event["requestContext"]["authorizer"] = {
        "iam": {"accountId": "123456789012", "userArn": "arn:aws:iam::123456789012:user/bench"}
    }
    return event


# front door -> (the event the API function receives, its price per request)
FRONT_DOORS: dict[str, tuple[Callable[[dict[str, Any], str], dict[str, Any]], str]] = {
    "rest_api": (rest_event, "apigw_rest_request"),
    "http_api": (http_event, "apigw_http_request"),
    "function_url": (url_event, "function_url_request"),
    "function_url_iam": (signed_url_event, "function_url_request"),
}
# The app's own auth behind a function URL: API keys from the table, rate limited (defaults);
# or SigV4 checked by Lambda (AWS_IAM), which costs the app nothing.
APP_AUTH_ENV = {
    "function_url": {"A2A_FRONT_DOOR": "function_url", "A2A_AUTH_MODE": "api_key"},
    "function_url_iam": {"A2A_FRONT_DOOR": "function_url", "A2A_AUTH_MODE": "iam"},
}


# Each door's access log (the REST API's and the HTTP API's stages; a function URL keeps none).
ACCESS_LOGS: dict[str, dict[str, str] | None] = {
    "rest_api": access_logs.rest_format("api_key"),
    "http_api": access_logs.http_format("jwt"),
    "function_url": None,
    "function_url_iam": None,
}


# Before the cuts: the filter let every new commit through; the access logs' former fields.
BEFORE_FILTERS = ({"eventName": ["INSERT"], "dynamodb": {"NewImage": {"sk": {"S": [{"prefix": "EVT#"}]}}}},)
BEFORE_ACCESS_LOGS: dict[str, dict[str, str] | None] = {
    "rest_api": {  # AccessLogFormat.json_with_standard_fields, every field on
        "requestId": "$context.requestId",
        "ip": "$context.identity.sourceIp",
        "user": "$context.identity.user",
        "caller": "$context.identity.caller",
        "requestTime": "$context.requestTime",
        "httpMethod": "$context.httpMethod",
        "resourcePath": "$context.resourcePath",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
    },
    "http_api": {
        "requestId": "$context.requestId",
        "ip": "$context.identity.sourceIp",
        "requestTime": "$context.requestTime",
        "httpMethod": "$context.httpMethod",
        "routeKey": "$context.routeKey",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
        "integrationError": "$context.integrationErrorMessage",
        "authorizerError": "$context.authorizer.error",
    },
    "function_url": None,
    "function_url_iam": None,
}
