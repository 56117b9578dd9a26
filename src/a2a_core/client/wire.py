"""Reading HTTP answers, whatever the binding: every way an answer can be wrong, named."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError

from a2a_core.client.errors import A2AClientHTTPError

T = TypeVar("T")


def json_body(response: httpx.Response) -> Any:
    """The decoded body of a successful (2xx) response."""
    if not response.is_success:
        raise status_error(response)
    return loads(response.text, response)


def status_error(response: httpx.Response) -> A2AClientHTTPError:
    detail = " ".join(response.text.split())[:200]
    suffix = f": {detail}" if detail else ""
    return http_error(response, f"HTTP {response.status_code} from {response.request.url}{suffix}")


def loads(text: str, response: httpx.Response) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        kind = response.headers.get("content-type", "no content type")
        raise http_error(response, f"{response.request.url} answered with non-JSON ({kind})") from None


def decoded(decode: Callable[[Any], T], value: Any, response: httpx.Response) -> T:
    """``decode(value)``; an answer it refuses is the server's fault, named as such."""
    try:
        return decode(value)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "result"
        raise _invalid(response, f"{where}: {first['msg']}") from error
    except ValueError as error:
        raise _invalid(response, str(error)) from error


def _invalid(response: httpx.Response, problem: str) -> A2AClientHTTPError:
    return http_error(response, f"{response.request.url} answered with an invalid object ({problem})")


def http_error(response: httpx.Response, message: str) -> A2AClientHTTPError:
    try:
        body = response.text[:500]
    except httpx.ResponseNotRead:
        body = ""
    url = str(response.request.url)
    return A2AClientHTTPError(message, status_code=response.status_code, url=url, body=body)


def describe(error: httpx.TransportError) -> str:
    return str(error) or type(error).__name__
