"""ProtoJSON for the 1.0 wire: the base model, the scalar types, oneofs and validation errors.

Decisions the proto leaves to a JSON implementation (spec 5.5-5.7, protobuf's JSON mapping):

- Field names: camelCase on output; camelCase or the proto's snake_case name on input.
- Unknown fields are ignored (spec 5.7).
- Enums: the SCREAMING_SNAKE name on output. On input the name, or the enum number as ProtoJSON
  parsers accept it; an unknown name or number is refused (protobuf's ``ignore_unknown_fields``
  would silently turn it into 0, which for a filter means "everything").
- int32: a JSON number or a decimal string (ProtoJSON); fractions, booleans and values outside
  int32 are refused. Integral floats (``10.0``, ``1e2``) are accepted, as ProtoJSON allows.
  int64 (A2A 1.1's generations) alike, and sent as a decimal string.
- bool: JSON ``true``/``false`` only; no strings, no 0/1.
- bytes: standard or URL-safe base64, padding optional; stored and sent as standard padded base64.
- Timestamps: RFC 3339; sent as UTC with milliseconds (``2025-10-28T10:30:00.000Z``, spec 5.6.1),
  parsed to millisecond precision so a value survives a round trip unchanged.
- Implicit presence: a proto3 string with no ``optional`` that is ``""`` is unset, so it is read
  as None and never sent; REQUIRED strings must be non-empty.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    PlainSerializer,
    StrictBool,
)
from pydantic import ValidationError as PydanticValidationError
from pydantic.alias_generators import to_camel

from a2a_core.core.errors import InvalidParamsError
from a2a_core.domain._base import A2ABaseModel

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class ProtoModel(A2ABaseModel):
    """A proto message: camelCase out, camelCase or snake_case in, unknown fields ignored (the
    JSON conventions every A2A generation shares, and ProtoJSON's)."""


def dump(model: BaseModel) -> dict[str, Any]:
    """ProtoJSON for a message: camelCase, unset fields omitted."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def dump_json(model: BaseModel) -> bytes:
    return model.model_dump_json(by_alias=True, exclude_none=True).encode()


# --- scalars ---------------------------------------------------------------------------------

_NUMBER = re.compile(r"-?\d+(\.\d*)?([eE][+-]?\d+)?")


def _int32(value: object) -> int:
    result = _integer(value)
    if not INT32_MIN <= result <= INT32_MAX:
        raise ValueError(f"{result} is outside the int32 range")
    return result


def _int64(value: object) -> int:
    result = _integer(value)
    if not INT64_MIN <= result <= INT64_MAX:
        raise ValueError(f"{result} is outside the int64 range")
    return result


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"must be an integer, got {value!r}")
    if isinstance(value, str):
        if not _NUMBER.fullmatch(value):
            raise ValueError(f"must be an integer, got {value!r}")
        try:
            number = Decimal(value)
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
            raise ValueError(f"must be an integer, got {value!r}") from None
    else:
        number = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    if not number.is_finite() or number != number.to_integral_value():
        raise ValueError(f"must be an integer, got {value!r}")
    return int(number)


def canonical_base64(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a base64 string")
    text = value.rstrip("=")
    if "-" in text or "_" in text:
        if "+" in text or "/" in text:
            raise ValueError("mixes the standard and URL-safe base64 alphabets")
        text = text.replace("-", "+").replace("_", "/")
    padding = len(value) - len(text)
    if len(text) % 4 == 1 or (padding and (padding > 2 or (len(text) + padding) % 4)):
        raise ValueError("is not valid base64 (wrong length or padding)")
    try:
        data = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("is not valid base64") from None
    return base64.b64encode(data).decode("ascii")


_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))"
)


def parse_timestamp(value: object) -> datetime:
    """An RFC 3339 timestamp (or an aware datetime) as a UTC datetime with millisecond precision."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("timestamp has no time zone")
        moment = value.astimezone(UTC)
        return moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    match = _TIMESTAMP.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"must be an RFC 3339 timestamp such as 2025-10-28T10:30:00.000Z, got {value!r}")
    year, month, day, hour, minute, second, fraction, _z, sign, off_h, off_m = match.groups()
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    try:
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), millis * 1000, tzinfo=UTC
        )
    except ValueError as error:
        raise ValueError(f"is not a valid date and time: {error}") from None
    if sign:
        offset = timedelta(hours=int(off_h), minutes=int(off_m))
        moment = moment - offset if sign == "+" else moment + offset
    return moment


def format_timestamp(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    # Not strftime: its %Y does not pad years before 1000 to four digits on every platform.
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
        f".{utc.microsecond // 1000:03d}Z"
    )


def unset_if_empty(value: Any) -> Any:
    return value or None


Int32 = Annotated[int, BeforeValidator(_int32)]
NonNegativeInt32 = Annotated[int, BeforeValidator(_int32), Field(ge=0)]
# int64 is a decimal string in ProtoJSON (a JSON number loses precision past 2**53); read as either.
NonNegativeInt64 = Annotated[int, BeforeValidator(_int64), Field(ge=0), PlainSerializer(str, return_type=str)]
Bytes = Annotated[str, BeforeValidator(canonical_base64)]
Timestamp = Annotated[datetime, BeforeValidator(parse_timestamp), PlainSerializer(format_timestamp)]
# A proto3 string without `optional`: "" is the default, so it means unset.
Str = Annotated[str | None, AfterValidator(unset_if_empty)]
# A REQUIRED string: present and not the (unset) default.
RequiredStr = Annotated[str, Field(min_length=1)]
# A proto3 bool without `optional`: false is the default, so it is never sent (matters for the
# card: its signature covers the canonical form, which omits defaults).
ImplicitBool = Annotated[StrictBool | None, AfterValidator(unset_if_empty)]
Struct = dict[str, Any]
StrList = Annotated[list[str] | None, AfterValidator(unset_if_empty)]

E = TypeVar("E", bound=StrEnum)


def enum_parser(enum: type[E]) -> Callable[[object], E]:
    """Parses a proto enum from its name or its number (members are declared in number order)."""
    members = list(enum)

    def parse(value: object) -> E:
        if isinstance(value, enum):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(members):
            return members[value]
        if isinstance(value, str) and value in enum.__members__:
            return enum[value]
        names = ", ".join(members)
        raise ValueError(f"{value!r} is not a {enum.__name__}; expected one of {names}")

    return parse


# --- oneofs ------------------------------------------------------------------------------------


def check_oneof(model: BaseModel, oneof: str, members: Iterable[str], *, required: bool = True) -> str | None:
    """The one member of ``oneof`` that is set; raises ValueError naming them otherwise.

    A member is set when it is not None; a ``google.protobuf.Value`` member (part ``data``) is
    also set when the input had it as JSON ``null``, which the caller marks by listing it in
    ``model_fields_set``.
    """
    names = list(members)
    chosen = [name for name in names if _is_set(model, name)]
    if len(chosen) == 1 or (not chosen and not required):
        return chosen[0] if chosen else None
    wire = [to_camel(name) for name in names]
    found = " and ".join(to_camel(name) for name in chosen) if chosen else "none of them"
    kind = type(model).__name__
    raise ValueError(f"{kind}.{oneof} must set exactly one of {', '.join(wire)}; it sets {found}")


def _is_set(model: BaseModel, name: str) -> bool:
    value = getattr(model, name)
    return value is not None or (name == "data" and name in model.model_fields_set)


# --- validation errors -----------------------------------------------------------------------


def field_path(loc: Iterable[int | str]) -> str:
    """A pydantic error location as a google.rpc field path: ``message.parts[0].text``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def invalid_params(error: PydanticValidationError, *, prefix: str = "") -> InvalidParamsError:
    """A -32602 whose ``data`` lists every violation as ``{"field", "message"}``."""
    details = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        loc = [*([prefix] if prefix else []), *item["loc"]]
        message = item["msg"].removeprefix("Value error, ")
        details.append({"field": field_path(loc), "message": message})
    first = details[0]
    where = first["field"] or "params"
    return InvalidParamsError(f"Invalid params: {where}: {first['message']}", data=details)
