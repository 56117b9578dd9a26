"""Example agents; `a2a-serverless dev --agent a2a_core.examples.multiturn:agent` runs one."""
