"""The webhook SSRF policy: which URLs the agent may POST to, with DNS answered by stubs."""

from __future__ import annotations

import ipaddress

import pytest

from a2a_core.push.urls import UnresolvableHostError, UrlPolicy, WebhookRefusedError, check_header_value

pytestmark = pytest.mark.anyio

PUBLIC = "93.184.215.14"

# One address per class the policy refuses, with the words its reason must contain.
REFUSED_ADDRESSES = [
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.10", "private"),
    ("127.0.0.1", "loopback"),
    ("::1", "loopback"),
    ("169.254.169.254", "link-local"),  # the EC2/ECS metadata service
    ("fe80::1", "link-local"),
    ("fd00:ec2::254", "private"),  # the EC2 metadata service over IPv6
    ("224.0.0.251", "multicast"),
    ("ff02::1", "multicast"),
    ("0.0.0.0", "unspecified"),
    ("::", "unspecified"),
    ("240.0.0.1", "reserved"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("192.0.2.1", "special-purpose"),
    ("::ffff:10.0.0.1", "embedding 10.0.0.1"),
    ("::ffff:169.254.169.254", "embedding 169.254.169.254"),
    ("64:ff9b::a9fe:a9fe", "embedding 169.254.169.254"),  # NAT64
    ("2002:a9fe:a9fe::1", "embedding 169.254.169.254"),  # 6to4
]


def resolving(*answers: str) -> UrlPolicy:
    async def resolver(host: str, port: int) -> list[str]:
        return list(answers)

    return UrlPolicy(resolver=resolver)


RULE = (
    "host 'hooks.example.com' is refused: webhooks must be reachable on the public internet "
    "(global unicast addresses only), and a name must resolve to such addresses only"
)


@pytest.mark.parametrize(("address", "reason"), REFUSED_ADDRESSES)
async def test_a_host_resolving_to_a_refused_address_is_refused_naming_the_rule_only(
    address: str, reason: str
) -> None:
    # What the name resolves to is for the operator (detail), never for the caller (message):
    # a caller could otherwise map the names of the agent's network.
    with pytest.raises(WebhookRefusedError) as refused:
        await resolving(address).check("https://hooks.example.com/a2a")
    assert str(refused.value) == RULE
    assert reason in refused.value.detail
    assert str(ipaddress.ip_address(address)) in refused.value.detail


@pytest.mark.parametrize(("address", "reason"), REFUSED_ADDRESSES)
async def test_an_ip_literal_of_a_refused_class_is_refused(address: str, reason: str) -> None:
    literal = f"[{address}]" if ":" in address else address
    with pytest.raises(WebhookRefusedError, match=reason):
        await resolving(PUBLIC).check(f"https://{literal}/a2a")


async def test_one_private_answer_among_public_ones_is_enough_to_refuse() -> None:
    with pytest.raises(WebhookRefusedError) as refused:
        await resolving(PUBLIC, "10.0.0.7").check("https://hooks.example.com/a2a")
    assert (str(refused.value), refused.value.detail.split(",")[0]) == (
        RULE,
        "host 'hooks.example.com' resolves to 10.0.0.7",
    )


async def test_a_public_https_url_passes_and_is_pinned_to_the_checked_address() -> None:
    checked = await resolving("2606:2800:21f:cb07:6820:80da:af6b:8b2c", PUBLIC).check(
        "https://Hooks.Example.com:8443/a2a?x=1#frag"
    )
    assert checked.host == "hooks.example.com"
    assert checked.host_header == "hooks.example.com:8443"
    assert checked.pinned() == f"https://{PUBLIC}:8443/a2a?x=1"  # IPv4 first
    assert checked.pinned(1) == "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/a2a?x=1"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://hooks.example.com/a2a", "https"),
        ("ftp://hooks.example.com/a2a", "https"),
        ("https://user:pw@hooks.example.com/a2a", "credentials"),
        ("https:///a2a", "no host"),
        ("https://hooks.example.com:0/a2a", "port 0"),
        ("https://hooks.example.com/a\r\nX-Evil: 1", "control"),
        ("https://2130706433/a2a", "non-canonical"),
        ("https://0x7f.1/a2a", "non-canonical"),
        ("https://127.1/a2a", "non-canonical"),
        ("https://hooks.example.com/" + "a" * 2100, "longer"),
    ],
)
async def test_malformed_or_insecure_urls_are_refused(url: str, reason: str) -> None:
    with pytest.raises(WebhookRefusedError, match=reason):
        await resolving(PUBLIC).check(url)


async def test_plain_http_is_allowed_only_to_loopback_and_only_when_enabled() -> None:
    async def loopback(host: str, port: int) -> list[str]:
        return ["127.0.0.1", "::1"]

    dev = UrlPolicy(allow_insecure_loopback=True, resolver=loopback)
    assert (await dev.check("http://localhost:8080/hook")).pinned() == "http://127.0.0.1:8080/hook"
    with pytest.raises(WebhookRefusedError, match="loopback"):
        await UrlPolicy(resolver=loopback).check("http://localhost:8080/hook")
    with pytest.raises(WebhookRefusedError, match="private"):  # the flag is about loopback only
        await UrlPolicy(allow_insecure_loopback=True).check("http://10.0.0.1/hook")
    with pytest.raises(WebhookRefusedError, match="https"):
        await UrlPolicy(allow_insecure_loopback=True).check(f"http://{PUBLIC}/hook")


async def test_the_domain_allowlist_admits_listed_domains_and_their_subdomains_only() -> None:
    async def public(host: str, port: int) -> list[str]:
        return [PUBLIC]

    policy = UrlPolicy(allowed_domains=("example.com",), resolver=public)
    await policy.check("https://example.com/a")
    await policy.check("https://hooks.example.com/a")
    for url in ("https://example.com.evil.net/a", "https://notexample.com/a", f"https://{PUBLIC}/a"):
        with pytest.raises(WebhookRefusedError, match="allowed webhook domains"):
            await policy.check(url)


async def test_a_host_that_does_not_resolve_is_refused_in_the_same_words_as_an_internal_one() -> None:
    async def nxdomain(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    with pytest.raises(UnresolvableHostError) as refused:
        await UrlPolicy(resolver=nxdomain).check("https://hooks.example.com/a")
    assert str(refused.value) == RULE
    assert refused.value.detail == "host 'hooks.example.com' does not resolve (Name or service not known)"


@pytest.mark.parametrize("value", ["ok\r\nX-Injected: 1", "ok\nmore", "nul\x00"])
def test_header_values_with_control_characters_are_refused(value: str) -> None:
    with pytest.raises(WebhookRefusedError, match="control characters"):
        check_header_value("token", value)
