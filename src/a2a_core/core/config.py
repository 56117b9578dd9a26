"""What the engine is configured with: the settings it needs, as plain values (the core reads no
environment; the composition root fills this from `a2a_core.settings.Settings`)."""

from __future__ import annotations

from dataclasses import dataclass

from a2a_core.domain.scalars import DEFAULT_FILE_URI_SCHEMES


@dataclass(frozen=True)
class EngineConfig:
    default_blocking: bool = True
    blocking_timeout: float = 25.0
    # How long an A2A 1.1 GetTask with currentGeneration is held at most (a buffered front door
    # answers within 29 s; a streaming one allows longer).
    long_poll_timeout: float = 25.0
    input_modes: tuple[str, ...] = ("text/plain", "application/json")
    output_modes: tuple[str, ...] = ("text/plain", "application/json")
    max_parts_per_message: int = 100
    max_text_part_chars: int = 200_000
    max_history_length: int = 1000
    file_uri_schemes: tuple[str, ...] = DEFAULT_FILE_URI_SCHEMES
