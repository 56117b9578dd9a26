#!/usr/bin/env bash
# The release job's steps (.github/workflows/release.yml), as a user takes them from the built
# wheel: build the sdist and the wheel; install the wheel with pip alone into a fresh venv, with
# the local and cdk extras; `init` a project outside this repository; run the project's test; and
# synthesize it with the CDK CLI its package.json pins (on the Node LTS it pins too).
#
#     scripts/release_check.sh WORKDIR      (UV=/path/to/uv builds; PYTHON=python3.13 installs)
#
# WORKDIR gets dist/, venv/ and demo/. tests/e2e/test_pip_user.py runs it with no uv on PATH.
set -euo pipefail
work="$(realpath "$1")"
kit="$(cd "$(dirname "$0")/.." && pwd)"
uv="${UV:-uv}"
python="${PYTHON:-python3}"
mkdir -p "$work"

echo "== build the sdist and the wheel"
"$uv" build --quiet --out-dir "$work/dist" "$kit"
wheel="$(ls "$work"/dist/a2a_serverless-*.whl)"

echo "== install the wheel into a fresh venv with pip"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel[local,cdk]" pytest

echo "== init a project"
cd "$work"
"$work/venv/bin/a2a-serverless" init demo --template multiturn
cd demo

echo "== the project's test"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider

echo "== cdk synth, with the CDK CLI and Node the project pins"
npm install --no-audit --no-fund --loglevel=error
# The app runs on the venv's Python; the venv is not activated (its uv is found through the kit).
sed -i "s#\"python3 app.py\"#\"$work/venv/bin/python app.py\"#" cdk.json
npx cdk synth --no-notices -q
echo "== release check passed: $wheel"
