"""`aws_cost`'s report, printed: one front door's figures against the targets, and the summary."""

from __future__ import annotations

from typing import Any

from cost_model import FUNCTION_URL_TARGET, MEMORY_GB, TARGETS


def print_report(result: dict[str, Any]) -> None:
    per = result["per_task"]
    what = "with a webhook (a push config each)" if result["push_config"] else "no push config"
    what += ", as before the cuts" if result["before"] else ""
    print(
        f"simple task (non-blocking send -> worker completes -> tasks/get), {what}, {result['tasks']} "
        f"tasks on moto, push on, front door: {result['front_door']}\n"
    )
    for key in ("write_units", "read_units", "sqs_requests"):
        verdict = "PASS" if per[key] <= TARGETS[key] else "MISS"
        print(f"  {key:<24} {per[key]:>7}   target <= {TARGETS[key]}  {verdict}")
    for key in ("api_requests", "lambda_invocations", "push_records_filtered_in", "push_invocations"):
        print(f"  {key:<24} {per[key]:>7}")
    for key in ("kms_signatures", "traces", "table_bytes", "index_bytes"):
        print(f"  {key:<24} {per[key]:>7}")
    memory = ", ".join(f"{name} {gb} GB" for name, gb in MEMORY_GB.items())
    print(f"  {'gb_seconds':<24} {per['gb_seconds']:>7}   ({memory})")
    print(f"  mean PutItem size        {result['mean_put_item_bytes']} bytes")
    print("\nAWS calls per task:")
    for name, n in result["calls_per_task"].items():
        print(f"  {name:<28} {n}")
    print("\nlog events / bytes per task (each function's own lines; with Lambda's START/END/REPORT):")
    for name, line in result["log_lines_per_task"].items():
        own = f"own {line['own_events']} / {line['own_bytes']}, " if "own_bytes" in line else ""
        print(f"  {name:<12} {own}all {line['events']} / {line['bytes']}")
    print("\ndollars per million tasks (us-east-1 list prices, agent compute excluded):")
    for name, dollars in result["dollars_per_million_tasks"].items():
        print(f"  {name:<20} ${dollars:>8.3f}")
    total = result["total_per_million"]
    url = result["front_door"].startswith("function_url")
    target = FUNCTION_URL_TARGET if url else TARGETS["dollars_per_million"]
    verdict = "PASS" if total < target else f"MISS by ${total - target:.2f}"
    print(f"  {'total':<20} ${total:>8.2f}   target < ${target:.0f}  {verdict}")
    untraced = result["total_without_tracing_per_million"]
    print(f"  {'without X-Ray':<20} ${untraced:>8.2f}   (A2AServiceProps(tracing=False))")
    restores, cache = result["snapstart_per_million_at_1pct_cold"], result["snapstart_cache_per_month"]
    print(
        f"\n  with SnapStart on the API function: +${restores:.2f} per M tasks if 1% of its requests "
        f"start an environment (a restore each), +${cache:.2f} a month per cached version"
    )
    if url:
        calls = ", ".join(
            f"{n} {name.split(':')[1]}" for name, n in result["app_auth_calls_per_task"].items()
        )
        print(f"  the app's own API key auth, per task: {calls or 'no calls'} (key cache, leased tokens)")
        worst = result["app_auth_worst_case_per_million"]
        print(f"  worst case (every request a cache miss, one-token lease): +${worst:.2f} per M tasks")
        if result["front_door"] == "function_url_iam":
            return  # no CloudFront in front: it would replace the caller's signature with its own
        edge = result["edge_per_million"]
        print(f"  with CloudFront + WAF (EdgeOptions, list prices): +${edge:.2f} -> ${total + edge:.2f}")


def print_summary(results: list[dict[str, Any]]) -> None:
    print("\n" + "=" * 72 + "\ndollars per million simple tasks, by front door:")
    for result in results:
        what = " (each with a webhook)" if result["push_config"] else ""
        print(f"  {result['front_door']:<18} ${result['total_per_million']:>6.2f}{what}")
