# Two entry points (see README): `make dev` and `make test`. Both install what they need first:
# `make dev` only what the local server needs (Python packages, no Node), `make test` everything.
PYTHON ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
UV_VERSION := 0.13.9

# The pinned Node (package.json's `node` package: an LTS release, whatever node the machine has)
# runs the CDK CLI, jsii and the JavaScript tests; the machine's node only runs `npm ci`.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
export UV_PYTHON_DOWNLOADS := never
export UV_COMPILE_BYTECODE := 1

.PHONY: setup setup-dev browser dev test lint typecheck docs pytest pytest-runtime bench clean clients-lock frameworks-lock executors-lock

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --python $(PYTHON)
	touch $@

# What `a2a-serverless dev` imports: the kit with its `local` extra (uvicorn, moto, boto3, the
# push and client parts) and `pydantic-ai` (an example agent), plus the `agent` group (your
# agent's dependencies); no dev group, no Node, no client venvs. --inexact keeps what `make test`
# installed, and `make test`'s exact sync adds the rest, so either may follow the other.
$(VENV)/.synced-dev: pyproject.toml uv.lock | $(UV)
	UV_COMPILE_BYTECODE=0 $(UV) sync --frozen --inexact --no-default-groups --group agent --extra local --extra pydantic-ai \
		--python $(PYTHON)
	touch $@

# The pinned CDK CLI (aws-cdk 2.x) that synthesizes and deploys infra/, and @a2a-js/sdk.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# Older A2A clients for the e2e client matrix (tests/clients/), one venv each: two versions of
# a2a-sdk cannot share one. Rebuilt only when their hashed requirements change.
CLIENT_ENVS := a2a-sdk-0.3 a2a-sdk-0.2 fasta2a
CLIENTS_DIR := tests/clients/requirements

.venv-clients/%/.synced: $(CLIENTS_DIR)/%.txt | $(UV)
	$(UV) venv --quiet --clear --python $(PYTHON) .venv-clients/$*
	$(UV) pip sync --quiet --require-hashes --python .venv-clients/$*/bin/python $<
	touch $@

# Re-pin the client environments from their .in files (after changing a version there).
clients-lock: | $(UV)
	for env in $(CLIENT_ENVS); do \
		$(UV) pip compile --quiet --universal --python-version 3.11 --generate-hashes \
			--custom-compile-command "make clients-lock" $(CLIENTS_DIR)/$$env.in -o $(CLIENTS_DIR)/$$env.txt; \
	done

# Where a2a-sdk 0.3 executors and fasta2a workers are hosted in the tests (tests/executors/): the
# kit, editable, with its `local` extra, beside a2a-sdk 0.3 (which cannot share a venv with the
# dev group's 1.3) or fasta2a 2.1 with pydantic-ai (not a dependency of the kit). The kit's
# dependencies are pinned and hashed with the SDK's; the kit itself is built from here.
EXECUTOR_ENVS := a2a-sdk-0.3 fasta2a
EXECUTORS_DIR := tests/executors/requirements

.venv-executors/%/.synced: $(EXECUTORS_DIR)/%.txt | $(UV)
	$(UV) venv --quiet --clear --python $(PYTHON) .venv-executors/$*
	$(UV) pip sync --quiet --require-hashes --python .venv-executors/$*/bin/python $<
	$(UV) pip install --quiet --no-deps --no-build-isolation --python .venv-executors/$*/bin/python -e .
	touch $@

# fasta2a's brings pydantic-ai, of which the tests import a small part: no bytecode compiled ahead.
.venv-executors/fasta2a/.synced: export UV_COMPILE_BYTECODE = 0

# Re-pin the executor environments (after changing a version there, or the kit's `local` extra).
executors-lock: | $(UV)
	for env in $(EXECUTOR_ENVS); do \
		$(UV) pip compile --quiet --universal --python-version 3.11 --generate-hashes --extra local \
			--custom-compile-command "make executors-lock" $(EXECUTORS_DIR)/$$env.in pyproject.toml \
			-o $(EXECUTORS_DIR)/$$env.txt; \
	done

# Agent frameworks hosted through their own A2A executors (tests/frameworks/), one venv each: the
# kit, editable, with its `local` extra and the framework's (`adk`, `agent-framework`,
# `strands`), beside the a2a-sdk the framework runs on (ADK on 1.3 and on 0.3). Pinned and hashed;
# no bytecode compiled ahead (the tests import a small part of each framework).
FRAMEWORK_ENVS := adk-1.3 adk-0.3 agent-framework strands
FRAMEWORKS_DIR := tests/frameworks/requirements

.venv-frameworks/%/.synced: $(FRAMEWORKS_DIR)/%.txt | $(UV)
	$(UV) venv --quiet --clear --python $(PYTHON) .venv-frameworks/$*
	UV_COMPILE_BYTECODE=0 $(UV) pip sync --quiet --require-hashes --python .venv-frameworks/$*/bin/python $<
	UV_COMPILE_BYTECODE=0 $(UV) pip install --quiet --no-deps --no-build-isolation \
		--python .venv-frameworks/$*/bin/python -e .
	touch $@

# Re-pin the framework environments (after changing a version there, or the kit's extras): each
# env's extra is its name without the a2a-sdk version (adk-1.3: adk).
frameworks-lock: | $(UV)
	for env in $(FRAMEWORK_ENVS); do \
		$(UV) pip compile --quiet --universal --python-version 3.11 --generate-hashes \
			--extra local --extra $${env%-[0-9]*} --custom-compile-command "make frameworks-lock" \
			$(FRAMEWORKS_DIR)/$$env.in pyproject.toml -o $(FRAMEWORKS_DIR)/$$env.txt; \
	done

# The Lambda runtime's Python: the code the functions run (handlers, worker, engine, AWS adapters,
# bundling's bytecode) is tested on it too, in a venv of its own from the same uv.lock. The
# interpreter is found as the bundler finds the one that compiles the bundles' bytecode (on PATH,
# in pyenv, asdf or mise, or by uv; A2A_BYTECODE_PYTHON names one).
RUNTIME_PYTHON := 3.13
RUNTIME_VENV := .venv-$(RUNTIME_PYTHON)
RUNTIME_TESTS := tests/contract tests/integration/aws tests/integration/test_lambda_handler.py \
	tests/integration/test_lambda_generations.py tests/integration/test_lambda_streaming.py \
	tests/integration/test_http_api_lambda.py tests/unit/test_lambda_platform.py tests/unit/test_ended_turn.py \
	tests/unit/test_engine.py tests/unit/test_worker.py tests/unit/test_worker_delivery.py \
	tests/unit/test_turn_fencing.py tests/unit/test_retried_turns.py tests/unit/test_store_faults.py \
	tests/unit/test_aws_json_client.py tests/unit/test_snapshots.py tests/unit/test_task_reads.py \
	tests/unit/test_session_scope.py tests/unit/test_long_turns.py tests/infra/test_bundle_inputs.py \
	tests/unit/test_worker_cold_start.py tests/unit/test_task_generations.py tests/integration/test_v1_1_draft.py

# Without a Python of the runtime's version this says so and syncs nothing (`pytest-runtime` then
# skips), except under CI (CI=true, as .ci/run sets it), where it fails: CI tests what it deploys.
$(RUNTIME_VENV)/.synced: pyproject.toml uv.lock | $(VENV)/.synced
	@python=$$($(VENV)/bin/python -m a2a_core.bundling.bytecode $(RUNTIME_PYTHON)) || { \
		[ -z "$$CI" ] || exit 1; echo "no Python $(RUNTIME_PYTHON) here: its tests will be skipped"; exit 0; }; \
		echo "$(UV) sync --frozen --python $$python  (into $(RUNTIME_VENV))"; \
		UV_PROJECT_ENVIRONMENT=$(RUNTIME_VENV) $(UV) sync --quiet --frozen --python "$$python" && \
		touch $@

setup: $(VENV)/.synced node_modules/.installed $(CLIENT_ENVS:%=.venv-clients/%/.synced) \
	$(EXECUTOR_ENVS:%=.venv-executors/%/.synced) $(FRAMEWORK_ENVS:%=.venv-frameworks/%/.synced)

setup-dev: $(VENV)/.synced-dev

dev: setup-dev
	$(VENV)/bin/a2a-serverless dev $(ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/mypy

# The documentation site (docs/, mkdocs.yml): --strict turns a broken link or anchor, or a page
# left out of the nav, into a failure. Offline: no plugin fetches anything, no web fonts.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# One pytest worker per core (pytest-xdist); --dist loadgroup sends each test to a free worker,
# except that a module's tests sharing module-scoped servers stay together (tests/conftest.py).
# pytest-cov combines the workers' coverage; the 15 slowest tests are listed at the end (where the time goes).
pytest: setup
	$(VENV)/bin/pytest -n auto --dist loadgroup --durations=15 --cov --cov-report=term-missing:skip-covered

# The docs page test drives Debian's chromium (playwright-core never downloads a browser); the
# dev banner test runs its curl command as printed.
browser:
	@if [ ! -x /usr/bin/chromium ] || ! command -v curl >/dev/null; then \
		SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		$$SUDO apt-get update && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium curl; \
	fi

pytest-runtime: setup $(RUNTIME_VENV)/.synced
	@if [ -x $(RUNTIME_VENV)/bin/pytest ]; then \
		$(RUNTIME_VENV)/bin/pytest -n auto --dist loadgroup -p no:cacheprovider $(RUNTIME_TESTS); \
	else \
		echo "skipped the tests on Python $(RUNTIME_PYTHON), the Lambda runtime's: none found on this machine"; \
	fi

test: browser lint typecheck docs pytest pytest-runtime

bench: setup
	$(VENV)/bin/python bench/cold_start.py
	$(VENV)/bin/python bench/botocore_steps.py
	$(VENV)/bin/python bench/bundle_sizes.py
	$(VENV)/bin/python bench/warm_latency.py

clean:
	rm -rf $(VENV) $(RUNTIME_VENV) .venv-clients .venv-executors .venv-frameworks $(TOOLS) .mypy_cache .pytest_cache .ruff_cache .coverage site
