#!/usr/bin/env bash
# Install the Debian packages the project needs when they are missing: what
# `python -m venv` and the mysqlclient build need, and redis-server unless the
# target's Redis lives elsewhere (REDIS_URL for `run` and `bench`, TEST_REDIS_URL for
# `test`), chromium, zbar-tools and a CJK font for the browser tests, gettext's msgfmt
# for the catalog test, prometheus for the alert rules' test, and wrk for the benchmarks.
# Needs root and apt; says so clearly otherwise. Waits (APT_LOCK_TIMEOUT, 300 s) while
# another apt holds its lock.
#   scripts/bootstrap-system.sh [run|test|bench]
set -euo pipefail

python="${PYTHON:-python3}"
case "${1:-run}" in
  test) external_redis="${TEST_REDIS_URL:-}" ;;
  *) external_redis="${REDIS_URL:-}" ;;
esac
missing=()
if [ -z "$external_redis" ]; then
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
fi
if [ "${1:-run}" = test ]; then
  # The browser tests (tests/web) drive Debian's Chromium; Playwright cannot download one here.
  command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 || missing+=(chromium)
  # They read the redeem code's QR back with zbarimg, to prove it encodes the code.
  command -v zbarimg >/dev/null 2>&1 || missing+=(zbar-tools)
  # Shop names and the client's text are Chinese: without a CJK font they draw as boxes.
  [ -n "$(fc-list :lang=zh 2>/dev/null)" ] || missing+=(fonts-noto-cjk)
  # tests/platform/test_i18n.py compiles the translations anew to prove the committed .mo is current.
  command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
  # tests/platform/test_prometheus.py runs Prometheus (and promtool) on docs/prometheus/.
  command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
fi
if [ "${1:-run}" = bench ]; then
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
fi
"$python" -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
"$python" - <<'PY' || missing+=(python3-dev)
import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))
PY
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! pkg-config --exists mariadb 2>/dev/null && ! pkg-config --exists mysqlclient 2>/dev/null; then
  missing+=(libmariadb-dev)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "==> installing system packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "error: need ${missing[*]} but cannot install them (not root, or no apt-get)." >&2
  echo "       install them with your package manager, or point REDIS_URL at a running Redis." >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# The packages' own services (redis-server, prometheus) must not start: every script
# here runs its own on its own ports. Debian asks policy-rc.d; say no while installing.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
# Through scripts/apt.sh: another apt running (unattended upgrades, a second terminal)
# is waited for, a bounded time, instead of failing the make target at once.
"$(dirname "$0")/apt.sh" update -qq
"$(dirname "$0")/apt.sh" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
