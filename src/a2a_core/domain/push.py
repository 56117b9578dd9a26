"""Push notification configuration: where to POST task updates, how to authenticate, and which
protocol generation's payload the webhook gets."""

from typing import Any

from pydantic import Field, ValidationInfo, ValidatorFunctionWrapHandler, field_validator

from a2a_core.domain._base import A2ABaseModel
from a2a_core.domain.scalars import is_wire_input
from a2a_core.generations import V0_3


class PushNotificationAuthenticationInfo(A2ABaseModel):
    """Defines authentication details for push notifications."""

    schemes: list[str]
    credentials: str | None = None


class PushNotificationConfig(A2ABaseModel):
    """Configuration for setting up push notifications for task updates."""

    url: str
    id: str | None = None
    token: str | None = None
    authentication: PushNotificationAuthenticationInfo | None = None
    # The generation the config was created through (`a2a_core.generations`: "0.3" or "1.0"): its
    # webhook gets the payload that generation's receivers parse (`a2a_core.push.payloads`). The
    # server's record, on no generation's wire: no JSON of the model carries it (a store keeps it
    # beside the config's JSON, and reads a config stored without it as 0.3, where every config
    # kept before 1.0 came from), and a client's request cannot set it (see the validator).
    generation: str = Field(default=V0_3.version, exclude=True)

    @field_validator("generation", mode="wrap")
    @classmethod
    def _not_from_the_wire(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        # A 0.x request is read as a domain config; whatever it names, it is 0.x's. (1.0's wire
        # has its own model, and its codec sets 1.0.)
        return V0_3.version if is_wire_input(info) else handler(value)
