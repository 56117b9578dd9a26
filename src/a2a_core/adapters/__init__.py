"""Agents written otherwise, hosted: a2a-sdk executors (`a2a_sdk`), pydantic-ai (`pydantic_ai`);
each needs its library installed. `resolve` tells what a user named as their agent apart."""
