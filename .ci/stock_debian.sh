#!/usr/bin/env bash
# CI job: the README's two commands on a stock Debian 12 with nothing but `python3`.
#
# A Debian 12 ("bookworm") chroot made by debootstrap from Debian's mirror (minbase + python3:
# Python 3.11.2, externally managed, no pip, no venv module's ensurepip, no `python` command, no
# CA certificates), a copy of this checkout in /src, and then, inside it, as a new user would:
#
#   1. python3 scripts/start.py          the set-up command: makes .venv, installs the lock, pip
#                                        check, starts the app with the bundled model; the job
#                                        waits for /_stcore/health and this machine's Chromium
#                                        opens Home and one lesson page (chroots share the network)
#   2. bash scripts/test.sh <subset>     the test command: installs the PyTorch checks and the test
#                                        tools into the same .venv, ruff, mypy, then a subset of the
#                                        tests (TESTS below; the whole suite runs in .ci/run itself)
#
# What this machine adds, none of it to the chroot's system: /proc, /sys and /dev; its DNS
# settings; SSL_CERT_FILE pointing at its CA bundle (this network's egress re-signs TLS); pip's
# download cache (so wheels are not downloaded again: the installs themselves are fresh); and,
# where this machine keeps PyTorch's CPU wheel in a local folder (/opt/wheels) because it cannot
# reach PyTorch's index, that folder as pip's --find-links with ATTENTION_LAB_TORCH_INDEX empty.
# The chroot's base system is kept between runs in $STOCK_DEBIAN_CACHE (a tarball of the
# untouched debootstrap result; delete it to bootstrap again).
#
# Needs root, debootstrap (installed with apt-get when missing) and Debian's mirror.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CACHE="${STOCK_DEBIAN_CACHE:-/var/cache/attention-lab-ci}"
TESTS=(tests/test_release.py tests/test_attention.py tests/test_encoder.py tests/test_model_files.py tests/test_pages.py)
say() { echo "stock_debian: $*" >&2; }
t0=$SECONDS

[ "$(id -u)" -eq 0 ] || { say "needs root (chroot, mount)"; exit 1; }
if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap with apt-get"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

work="$(mktemp -d /var/tmp/stock-debian-XXXXXX)"
chroot_dir="$work/root"
app_pid=""
cleanup() {
  if [ -n "$app_pid" ]; then kill -TERM -- "-$app_pid" 2>/dev/null || true; sleep 1; kill -KILL -- "-$app_pid" 2>/dev/null || true; fi
  for m in "$chroot_dir/root/.cache/pip" "$chroot_dir/opt/wheels" "$chroot_dir/dev/pts" "$chroot_dir/dev" "$chroot_dir/sys" "$chroot_dir/proc"; do
    mountpoint -q "$m" 2>/dev/null && umount -l "$m"
  done
  # never delete through a mount that is still there (/dev is the host's own)
  if grep -q " $work/" /proc/mounts; then
    say "mounts left under $work: not removing it"
  else
    rm -rf --one-file-system "$work"
  fi
}
trap cleanup EXIT

# 1. Stock Debian 12 with python3
mkdir -p "$CACHE"
base="$CACHE/bookworm-minbase-python3.tar"
if [ -s "$base" ]; then
  say "base system from $base (a debootstrap of an earlier run)"
  mkdir -p "$chroot_dir" && tar -xf "$base" -C "$chroot_dir"
else
  say "debootstrap bookworm (minbase + python3) from $MIRROR"
  debootstrap --variant=minbase --include=python3 bookworm "$chroot_dir" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  tar -cf "$base.tmp" -C "$chroot_dir" . && mv "$base.tmp" "$base"
fi
say "base system ready after $((SECONDS - t0)) s: $(chroot "$chroot_dir" python3 --version)"
in_chroot() { chroot "$chroot_dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "${chroot_env[@]}" "$@"; }
chroot_env=()
# what "only python3" means: no pip, no ensurepip, no `python`
if chroot "$chroot_dir" sh -c 'command -v python || command -v pip3 || python3 -c "import ensurepip"' >/dev/null 2>&1; then
  say "the chroot is not stock: it has python, pip3 or ensurepip"; exit 1
fi

# 2. This machine's plumbing (nothing installed into the chroot's system)
mount -t proc proc "$chroot_dir/proc"
mount --rbind /sys "$chroot_dir/sys" && mount --make-rslave "$chroot_dir/sys"
mount --rbind /dev "$chroot_dir/dev" && mount --make-rslave "$chroot_dir/dev"
cp -L /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
host_ca=/etc/ssl/certs/ca-certificates.crt
if [ -s "$host_ca" ]; then
  cp "$host_ca" "$chroot_dir/host-ca.pem"
  chroot_env+=(SSL_CERT_FILE=/host-ca.pem PIP_CERT=/host-ca.pem)
fi
mkdir -p "$chroot_dir/root/.cache/pip" "${PIP_CACHE_DIR:-/root/.cache/pip}"
mount --bind "${PIP_CACHE_DIR:-/root/.cache/pip}" "$chroot_dir/root/.cache/pip"
if [ -d /opt/wheels ]; then
  mkdir -p "$chroot_dir/opt/wheels" && mount --bind -o ro /opt/wheels "$chroot_dir/opt/wheels"
  chroot_env+=(PIP_FIND_LINKS=/opt/wheels ATTENTION_LAB_TORCH_INDEX=)
fi
chroot_env+=(PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore)

# the checkout: its tracked files and new ones not ignored (no .venv)
mkdir -p "$chroot_dir/src"
git -C "$ROOT" ls-files -z --cached --others --exclude-standard \
  | (cd "$ROOT" && xargs -0 tar --no-recursion -cf - 2>/dev/null) | tar -xf - -C "$chroot_dir/src"

# 3. The README's set-up command, which also starts the app
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
say "python3 scripts/start.py (port $port)"
setsid chroot "$chroot_dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 "${chroot_env[@]}" sh -c "cd /src && exec python3 scripts/start.py -- --server.headless true --server.port $port --server.address 127.0.0.1" \
  >"$work/start.log" 2>&1 &
app_pid=$!
t_setup=$SECONDS
until curl -fsS "http://127.0.0.1:$port/_stcore/health" >/dev/null 2>&1; do
  if ! kill -0 "$app_pid" 2>/dev/null; then tail -40 "$work/start.log" >&2; say "the set-up command ended before the app answered"; exit 1; fi
  if [ $((SECONDS - t_setup)) -gt 1200 ]; then tail -40 "$work/start.log" >&2; say "no answer from the app in 20 min"; exit 1; fi
  sleep 2
done
say "set-up and start: the app answered /_stcore/health after $((SECONDS - t_setup)) s"
grep -E "^start.py: (making|\\$ )" "$work/start.log" | sed 's/^/  /' >&2 || true
# this machine's Chromium, driven by the Playwright of the checkout's own .venv (.ci/run made it)
"${PYTHON:-$(python3 scripts/start.py --print-python)}" .ci/page_loads.py "http://127.0.0.1:$port/"
kill -TERM -- "-$app_pid" 2>/dev/null || true
wait "$app_pid" 2>/dev/null || true
app_pid=""

# 4. The README's test command (the same .venv), on a subset of the tests
say "bash scripts/test.sh ${TESTS[*]}"
t_test=$SECONDS
in_chroot SKIP_SYSTEM_PACKAGES=1 sh -c "cd /src && bash scripts/test.sh -m 'not browser' ${TESTS[*]}"
say "test command passed in $((SECONDS - t_test)) s; whole job $((SECONDS - t0)) s"
