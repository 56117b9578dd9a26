"""The HTTP edge: the Starlette app (`app`), what it knows of a request before a binding reads it
and how it refuses one at the door (`edge`), event streams (`sse`) and cacheable cards
(`card_http`)."""
