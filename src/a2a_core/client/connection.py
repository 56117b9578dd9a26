"""An interface the card offers, connected: the codec of its protocol generation over the
transport of its binding."""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from a2a_core.client import codec_v0, codec_v1
from a2a_core.client.interfaces import Interface
from a2a_core.client.jsonrpc import JsonRpcTransport
from a2a_core.client.operations import Codec
from a2a_core.client.rest import RestTransport
from a2a_core.client.transport import Transport
from a2a_core.generations import HTTP_JSON, V1_0, V1_1
from a2a_core.protocol.versions import HEADER


def connect(
    http: httpx.AsyncClient, interface: Interface, headers: Mapping[str, str]
) -> tuple[Codec, Transport]:
    """1.0 calls carry ``A2A-Version: 1.0`` (and the interface's tenant), the 1.1 draft's ``1.1``
    (its answers are 1.0's plus fields the 1.0 codec reads); 0.x ones name no version, which
    every 0.x server reads as its own."""
    sent = dict(headers)
    codec: Codec = codec_v0.CODEC
    v1 = interface.is_v1 or interface.is_draft
    if v1:
        sent[HEADER] = V1_1.version if interface.is_draft else V1_0.version
        codec = codec_v1.CODEC
    kind = RestTransport if interface.binding == HTTP_JSON else JsonRpcTransport
    tenant = interface.tenant if v1 else None
    return codec, kind(http, interface.url, sent, tenant=tenant)
