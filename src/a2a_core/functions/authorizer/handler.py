"""Authorizer Lambda: the REST API's JWT ``TOKEN`` authorizer (auth mode ``jwt``).

Composition root: settings, the issuer's JWKS (fetched on first use, then cached) and the token
validator are built once per cold start, at import. It needs neither the agent nor any AWS
client. The policy handling lives in `a2a_core.aws.authorizer`.
"""

from __future__ import annotations

# isort: off
from a2a_core.functions.cold_start import end_cold_start  # first: it pauses the collector in Lambda
# isort: on

import asyncio

from a2a_core import redaction
from a2a_core.auth.bearer import TokenValidator
from a2a_core.auth.issuer_settings import token_validator
from a2a_core.aws.authorizer import token_authorizer_handler
from a2a_core.settings import Settings

redaction.install()  # before anything logs: no secret in a log line, at any level


def build(settings: Settings) -> TokenValidator:
    return token_validator(settings, checker="the JWT authorizer", jwks_file=False)


validator = build(Settings.from_env())
loop = asyncio.new_event_loop()  # the container's: the JWKS cache outlives an invocation
handler = token_authorizer_handler(validator, loop=loop)
end_cold_start()
