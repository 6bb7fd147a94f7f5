#!/usr/bin/env bash
# Set up and run the test suite on a fresh machine (Python 3.11). Idempotent: re-running reuses the venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .  # `rag` importable anywhere, the `rag` command
# Browser tests drive Debian's chromium (Playwright's own browser download is not available offline).
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "warning: could not install chromium; browser tests will be skipped" >&2
fi
exec .venv/bin/python -m pytest "$@"
