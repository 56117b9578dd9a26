"""The base model every A2A protocol type derives from, and the one way to put a model on the wire."""

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

# Deferring the core-schema build keeps `import a2a_core.domain` cheap on a Lambda cold start: each
# model pays for its validator the first time it is used, and a handler uses only a few of them.
DEFER = ConfigDict(defer_build=True)


class A2ABaseModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown wire fields are ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="ignore",
        defer_build=True,
    )


def to_wire(model: BaseModel) -> dict[str, Any]:
    """JSON-ready camelCase dict; the schema forbids `null` for optional fields, so None is omitted."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
