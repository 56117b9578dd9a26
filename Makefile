# Two entry points (see README): `make dev` and `make test`. Both install what they need first.
PYTHON ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
UV_VERSION := 0.13.9

export UV_PYTHON_DOWNLOADS := never
export UV_COMPILE_BYTECODE := 1

.PHONY: setup browser dev test lint typecheck pytest bench clean

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --python $(PYTHON)
	touch $@

# The pinned CDK CLI (aws-cdk 2.x) that synthesizes and deploys infra/.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

setup: $(VENV)/.synced node_modules/.installed

dev: setup
	$(VENV)/bin/a2a-serverless dev $(ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/mypy

pytest: setup
	$(VENV)/bin/pytest --cov --cov-report=term-missing:skip-covered

# The docs page test drives Debian's chromium (playwright-core never downloads a browser); the
# dev banner test runs its curl command as printed.
browser:
	@if [ ! -x /usr/bin/chromium ] || ! command -v curl >/dev/null; then \
		SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		$$SUDO apt-get update && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium curl; \
	fi

test: browser lint typecheck pytest

bench: setup
	$(VENV)/bin/python bench/cold_start.py
	$(VENV)/bin/python bench/warm_latency.py

clean:
	rm -rf $(VENV) $(TOOLS) .mypy_cache .pytest_cache .ruff_cache .coverage
