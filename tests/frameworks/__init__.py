"""The agent frameworks whose own A2A executors the kit hosts, each in its environment
(``.venv-frameworks/<name>``, `requirements`): what `recording` wraps, and what
``tests/e2e/test_frameworks.py`` serves with ``a2a-serverless dev``."""
