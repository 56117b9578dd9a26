"""The floor under any server built as ours is: asyncio, Starlette and Mangum, and pydantic with
the one model the route validates, nothing of A2A. Imported and called by `bench/v1_cold_start.py`
exactly as the real handlers are, so its cold start is what the stack costs before the first line
of a2a_core (or of any other server on these libraries) runs.
"""

from __future__ import annotations

from typing import Any

from mangum import Mangum
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


class Echo(BaseModel):
    message: dict[str, Any]


async def echo(request: Request) -> Response:
    body = Echo.model_validate_json(await request.body())
    return Response(body.model_dump_json(), media_type="application/json")


app = Starlette(routes=[Route("/{path:path}", echo, methods=["POST"])])
_mangum = Mangum(app, lifespan="off")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _mangum(event, context)
