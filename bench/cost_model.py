"""List prices (us-east-1) and what `aws_cost` counts besides AWS calls: the lines Lambda itself logs,
API Gateway's access log lines, X-Ray's sampling, DynamoDB's storage accounting, SnapStart's charges.

Sources, looked up 2026-11-26: the AWS pricing pages of each service (Lambda: arm64, first tier;
SnapStart's cache and restore charges as the Lambda pricing page lists them for us-east-1), AWS's
documentation for how CloudWatch Logs sizes an event (its message in UTF-8 plus 26 bytes),
X-Ray's default sampling rule (the first request each second, then 5% of the others) and
DynamoDB's item overhead (100 bytes per item, in the table and in each index).
"""

from __future__ import annotations

PRICES = {
    "apigw_rest_request": 3.50 / 1e6,
    "apigw_http_request": 1.00 / 1e6,
    "function_url_request": 0.0,
    # CloudFront + WAF in front of a function URL (EdgeOptions), per request, not measured here:
    # HTTPS requests (North America/Europe), the viewer-request CloudFront Function, the
    # Lambda@Edge body hash (requests, and 128 MB for ~5 ms) and WAF's request charge.
    "cloudfront_https_request": 1.00 / 1e6,
    "cloudfront_function": 0.10 / 1e6,
    "lambda_edge_request": 0.60 / 1e6,
    "lambda_edge_compute": 0.125 * 0.005 * 0.00005001,
    "waf_request": 0.60 / 1e6,
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second_arm64": 0.0000133334,
    "dynamodb_write_unit": 0.625 / 1e6,
    "dynamodb_read_unit": 0.125 / 1e6,
    "sqs_standard_request": 0.40 / 1e6,
    "logs_ingested_gb": 0.50,  # CloudWatch Logs, standard class
    "logs_stored_gb_month": 0.03,  # charged compressed; priced here uncompressed (an upper bound)
    "xray_trace_recorded": 5.00 / 1e6,
    "dynamodb_storage_gb_month": 0.25,  # Standard table class
    "dynamodb_pitr_gb_month": 0.20,  # continuous backups: the table's size (GSIs excluded)
    "kms_asymmetric_request": 0.15 / 1e4,  # ECC_NIST_P256 Sign: "asymmetric, except RSA 2048"
    "snapstart_cache_gb_second": 0.0000015046,  # per published version, while it is cached
    "snapstart_restore_gb": 0.0001397998,  # per execution environment restored
    # The long-turn worker (`bench/long_turn_cost.py`): Fargate Linux/ARM, on-demand, per second
    # with a one-minute minimum; ephemeral storage past the free 20 GB; the public IPv4 address
    # each task holds while it runs. Looked up 2026-12-02 (AWS Fargate and VPC pricing, us-east-1).
    "fargate_arm_vcpu_second": 0.03238 / 3600,
    "fargate_arm_gb_second": 0.00356 / 3600,
    "fargate_storage_gb_second": 0.000111 / 3600,
    "public_ipv4_hour": 0.005,
    # Fargate Spot's discount on the on-demand price: "up to 70%"; Spot prices move with capacity.
    "fargate_spot_share": 0.30,
    # Amazon Bedrock AgentCore Runtime (the pricing page, aws.amazon.com/bedrock/agentcore/pricing,
    # as quoted 2026-09-29 and 2026-10-11 by third-party snapshots of it, read 2026-12-02): CPU
    # billed on active use only (none while the agent waits on I/O), memory on the peak so far
    # (128 MB minimum), per second with a one-second minimum.
    "agentcore_vcpu_second": 0.0895 / 3600,
    "agentcore_gb_second": 0.00945 / 3600,
}
GB = 1024**3
MONTH_DAYS = 365.25 / 12
LOG_EVENT_OVERHEAD = 26  # bytes CloudWatch Logs adds to every event's message
ITEM_OVERHEAD = 100  # bytes DynamoDB adds to every item it stores (table and index)
XRAY_SAMPLED = 0.05  # the default rule's share beyond its reservoir of one trace a second
XRAY_RESERVOIR_PER_MONTH = MONTH_DAYS * 24 * 3600  # the reservoir's traces at most, per month

# What Lambda writes around each invocation (text log format), with an invocation's typical
# values: a request id is a UUID, durations and memory a few characters. Under active tracing
# REPORT carries the trace's ids too; on a cold start, "Init Duration: 312.45 ms\t".
_REQUEST_ID = "8f5a3c6e-1b2d-4e5f-9a8b-7c6d5e4f3a2b"
PLATFORM_LINES = (
    f"START RequestId: {_REQUEST_ID} Version: $LATEST\n",
    f"END RequestId: {_REQUEST_ID}\n",
    f"REPORT RequestId: {_REQUEST_ID}\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 256 MB\t"
    "Max Memory Used: 91 MB\t\n",
)
XRAY_REPORT_SUFFIX = (
    "XRAY TraceId: 1-6748e0a1-0123456789abcdef01234567\tSegmentId: 0123456789abcdef\tSampled: true\t\n"
)
# $context values of a typical request, for the access log line API Gateway writes.
ACCESS_LOG_VALUES = {
    "$context.requestId": "4a1c2b3d-5e6f-4789-8abc-def012345678",
    "$context.identity.sourceIp": "203.0.113.10",
    "$context.requestTimeEpoch": "1795712035540",
    "$context.httpMethod": "POST",
    "$context.path": "/prod/",
    "$context.status": "200",
    "$context.responseLength": "811",
    "$context.responseLatency": "18",
    "$context.identity.apiKeyId": "a1b2c3d4e5",
}


def platform_log(invocations: float, *, traced: bool) -> tuple[float, float]:
    """(events, bytes) Lambda's own lines add for ``invocations`` (warm ones)."""
    size = sum(len(line.encode()) for line in PLATFORM_LINES)
    if traced:
        size += len(XRAY_REPORT_SUFFIX.encode())
    return invocations * len(PLATFORM_LINES), invocations * size


def logged_dollars(events: float, size: float) -> float:
    """Ingesting (and keeping for a month, uncompressed: an upper bound) ``events`` of ``size``
    bytes in all."""
    billed = size + events * LOG_EVENT_OVERHEAD
    return billed / GB * (PRICES["logs_ingested_gb"] + PRICES["logs_stored_gb_month"])


def xray_dollars(traces: float) -> float:
    """``traces`` started per task, recorded at the default rule's rate at scale (its reservoir
    adds at most one trace a second on top, ~$13 a month, whatever the traffic)."""
    return traces * XRAY_SAMPLED * PRICES["xray_trace_recorded"]


def storage_dollars(table_bytes: float, index_bytes: float, retention_days: float) -> dict[str, float]:
    """A task's items kept ``retention_days`` (TTL deletes them then): storage of the table and
    its indexes, and point-in-time recovery of the table."""
    months = retention_days / MONTH_DAYS
    return {
        "dynamodb_storage": (table_bytes + index_bytes) / GB * PRICES["dynamodb_storage_gb_month"] * months,
        "dynamodb_pitr": table_bytes / GB * PRICES["dynamodb_pitr_gb_month"] * months,
    }


def snapstart_dollars(memory_gb: float, cold_start_share: float, requests: float) -> dict[str, float]:
    """Per task: a restore for the ``cold_start_share`` of ``requests`` that start an
    environment; and per month, the cache of one published version (more while several are)."""
    return {
        "snapstart_restores_per_task": requests
        * cold_start_share
        * memory_gb
        * PRICES["snapstart_restore_gb"],
        "snapstart_cache_per_month": memory_gb * MONTH_DAYS * 24 * 3600 * PRICES["snapstart_cache_gb_second"],
    }


# The functions' memory as deployed (GB), and the issue's targets per simple task.
MEMORY_GB = {"api": 0.25, "worker": 0.5, "push": 0.25}
TARGETS = {"write_units": 6, "read_units": 3, "sqs_requests": 3, "dollars_per_million": 10.0}
# The target for the cheapest door with streaming.
FUNCTION_URL_TARGET = 5.0
