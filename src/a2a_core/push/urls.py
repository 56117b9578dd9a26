"""Which webhook URLs the agent may POST to (SSRF policy), checked at `set` and before each POST.

A client chooses the URL, and the agent runs inside someone's network: without this policy a
client could make it POST into that network (the cloud metadata service, a database admin page).
Only ``https`` URLs whose host resolves exclusively to global unicast addresses are accepted.
Every address the name resolves to is checked, not just the first, and `CheckedUrl.pinned`
gives delivery a URL that connects to a checked address while TLS and ``Host`` still use the
name, so a DNS answer that changes between the check and the connection (DNS rebinding) cannot
redirect the POST.

A refusal tells the client the rule its URL broke, never what its host resolves to: a name
that resolves only inside the agent's network (``http://vm:9/hook``) is refused with the same
words as one that does not resolve at all, so callers cannot map internal names. An IP literal's
refusal names its class (the caller wrote the address). What the name resolved to is kept in
`WebhookRefusedError.detail`, for the operator's log and dead letters.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# host, port -> every address the name resolves to (as text, in resolver order).
Resolver = Callable[[str, int], Awaitable[list[str]]]

MAX_URL_LENGTH = 2048
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]*|[0-9]*))*\.?$")
_HOST_CHARS = re.compile(r"^[a-z0-9.-]+$")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class WebhookRefusedError(ValueError):
    """The webhook (its URL or a header value) is refused; the message names the rule broken and
    is shown to the client. ``field`` names the config field at fault (``url``, ``token``, ...);
    ``detail`` says what was found (the addresses a name resolved to), for operators only."""

    def __init__(self, message: str, *, field: str = "url", detail: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.detail = detail or message


class UnresolvableHostError(WebhookRefusedError):
    """The host did not resolve (or not in time). At delivery this is worth a retry."""


async def system_resolver(host: str, port: int) -> list[str]:
    """``getaddrinfo`` in a thread (it blocks); every distinct address, in the resolver's order."""
    infos = await asyncio.to_thread(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class CheckedUrl:
    """A URL that passed the policy, with the addresses it was checked against."""

    url: str
    scheme: str
    host: str
    port: int
    target: str  # path and query, as sent in the request line
    addresses: tuple[IPAddress, ...]

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"

    def pinned(self, attempt: int = 0) -> str:
        """The URL with the host replaced by a checked address (rotating through them by attempt).

        Send it with ``Host: host_header`` and TLS server name ``host``: the certificate is still
        verified against the name, but the socket goes to the address that was checked.
        """
        address = self.addresses[attempt % len(self.addresses)]
        literal = f"[{address}]" if address.version == 6 else str(address)
        return f"{self.scheme}://{literal}:{self.port}{self.target}"


@dataclass(frozen=True)
class UrlPolicy:
    """``allow_insecure_loopback`` (local development only) also accepts loopback addresses and,
    for them alone, plain ``http``. ``allowed_domains``, when not empty, limits hosts to those
    names and their subdomains."""

    allow_insecure_loopback: bool = False
    allowed_domains: tuple[str, ...] = ()
    resolver: Resolver = field(default=system_resolver)
    resolve_timeout: float = 2.0

    async def check(self, url: str) -> CheckedUrl:
        """The checked URL; raises `WebhookRefusedError` (or `UnresolvableHostError`) naming the rule."""
        scheme, host, port, target = _parse(url)
        if scheme not in ("https", "http") or (scheme == "http" and not self.allow_insecure_loopback):
            raise WebhookRefusedError(
                _HTTPS_ONLY if scheme == "http" else f"{_HTTPS_ONLY} (got {scheme or 'no'} scheme)"
            )
        if self.allowed_domains and not _allowed(host, self.allowed_domains):
            raise WebhookRefusedError(f"host {host!r} is not in this agent's list of allowed webhook domains")
        literal = _literal(host)
        addresses = [literal] if literal is not None else await self._resolve(host, port)
        for address in addresses:
            reason = refusal(address)
            if reason is not None and not (self.allow_insecure_loopback and reason == "a loopback address"):
                if literal is not None:
                    raise WebhookRefusedError(f"host {host!r} is {reason}: {_PUBLIC_ONLY}")
                raise WebhookRefusedError(
                    _not_public(host), detail=f"host {host!r} resolves to {address}, {reason}"
                )
        if scheme == "http" and not all(refusal(a) == "a loopback address" for a in addresses):
            raise WebhookRefusedError(_HTTPS_ONLY)
        ordered = tuple(sorted(addresses, key=lambda a: a.version))  # IPv4 first: more often reachable
        return CheckedUrl(url, scheme, host, port, target, ordered)

    async def _resolve(self, host: str, port: int) -> list[IPAddress]:
        if _NUMERIC_HOST.match(host):
            # 2130706433, 0x7f.1 and 127.1 all mean 127.0.0.1 to getaddrinfo; no webhook needs them.
            raise WebhookRefusedError(f"host {host!r} is an IP address in a non-canonical form")
        try:
            answers = await asyncio.wait_for(self.resolver(host, port), self.resolve_timeout)
        except (OSError, TimeoutError) as error:
            detail = f"host {host!r} does not resolve ({error or 'timed out'})"
            raise UnresolvableHostError(_not_public(host), detail=detail) from None
        addresses: list[IPAddress] = []
        for answer in answers:
            try:
                addresses.append(ipaddress.ip_address(answer.split("%")[0]))
            except ValueError:
                detail = f"host {host!r} resolved to a non-address {answer!r}"
                raise UnresolvableHostError(_not_public(host), detail=detail) from None
        if not addresses:
            raise UnresolvableHostError(_not_public(host), detail=f"host {host!r} does not resolve")
        return addresses


_HTTPS_ONLY = "webhook URLs must use https (plain http is only allowed to loopback in dev)"
_PUBLIC_ONLY = "webhooks must be reachable on the public internet (global unicast addresses only)"


def _not_public(host: str) -> str:
    """The refusal of a named host, whether it resolves inside the network or not at all."""
    return f"host {host!r} is refused: {_PUBLIC_ONLY}, and a name must resolve to such addresses only"


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def refusal(address: IPAddress) -> str | None:
    """Why ``address`` may not receive notifications, or None when it is a global unicast address."""
    if address.version == 6:
        assert isinstance(address, ipaddress.IPv6Address)
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner = refusal(embedded)
            return None if inner is None else f"an IPv6 address embedding {embedded}, {inner}"
        if address.is_site_local:
            return "a site-local address"
    checks: Iterable[tuple[bool, str]] = (
        (address.is_unspecified, "the unspecified address"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address (this includes the cloud metadata service)"),
        (address.is_multicast, "a multicast address"),
        (address.version == 4 and address in _CGNAT, "a shared (carrier-grade NAT) address"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private or special-purpose address"),
        (not address.is_global, "not a global address"),
    )
    return next((reason for matched, reason in checks if matched), None)


def check_header_value(name: str, value: str) -> None:
    """Refuse values that would split or corrupt an HTTP header (CR, LF, other control bytes)."""
    if _CONTROL.search(value):
        raise WebhookRefusedError(f"{name} must not contain control characters (CR, LF, ...)", field=name)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if any(address in network for network in _NAT64):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _parse(url: str) -> tuple[str, str, int, str]:
    if len(url) > MAX_URL_LENGTH:
        raise WebhookRefusedError(f"webhook URL is longer than {MAX_URL_LENGTH} characters")
    if _CONTROL.search(url) or " " in url:
        raise WebhookRefusedError("webhook URL must not contain spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise WebhookRefusedError(f"webhook URL is malformed: {error}") from None
    scheme = parts.scheme.lower()
    if "@" in parts.netloc:
        raise WebhookRefusedError("webhook URL must not carry credentials (user@host); use authentication")
    raw_host = (parts.hostname or "").rstrip(".")
    if not raw_host:
        raise WebhookRefusedError("webhook URL has no host")
    try:
        host = raw_host if ":" in raw_host else raw_host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise WebhookRefusedError(f"host {raw_host!r} is not a valid domain name") from None
    if ":" not in host and not _HOST_CHARS.match(host):
        raise WebhookRefusedError(f"host {raw_host!r} is not a valid domain name")
    if port == 0:
        raise WebhookRefusedError("webhook URL has port 0")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, host, port if port is not None else (443 if scheme == "https" else 80), target


def _allowed(host: str, domains: Iterable[str]) -> bool:
    for domain in domains:
        domain = domain.lower().strip(".")
        if host == domain or host.endswith("." + domain):
            return True
    return False
