#!/usr/bin/env bash
# apt-get, waiting a bounded time while another apt or dpkg holds one of its locks instead
# of failing at once with "Could not get lock /var/lib/dpkg/lock-frontend" (decision 290).
#
#   scripts/apt.sh ARGS...   (apt-get's arguments)
#   APT_LOCK_TIMEOUT: seconds to wait in all (300); APT_LOCK_RETRY: seconds between tries (2)
#
# apt-get's own `-o DPkg::Lock::Timeout` is not enough: apt 2.6 (Debian bookworm) waits
# with it for the dpkg locks only, so `apt-get update` still fails at once on the lists
# lock, and a download on the archives lock. apt refuses a held lock before it changes
# anything, so the call is made again until the lock is free or the time is up.
set -euo pipefail

timeout="${APT_LOCK_TIMEOUT:-300}"
now_ms() { local us="${EPOCHREALTIME//[!0-9]/}"; echo $((us / 1000)); }  # bash 5's clock
started=$(now_ms)
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
waiting=""
while :; do
  status=0
  # In English whatever the locale, so the refusal below is recognised.
  LC_ALL=C apt-get "$@" 2>"$errors" || status=$?
  held=$(grep -m1 "Could not get lock" "$errors" | sed 's/^E: //' || true)
  if [ "$status" -eq 0 ] || [ -z "$held" ]; then
    cat "$errors" >&2
    if [ -n "$waiting" ]; then
      echo "==> apt-get $1: the lock was freed after $((($(now_ms) - started) / 1000))s" >&2
    fi
    exit "$status"
  fi
  if [ $(($(now_ms) - started)) -ge $((timeout * 1000)) ]; then
    echo "error: apt-get $1 gave up after ${timeout}s: another apt or dpkg still holds its lock." >&2
    echo "       $held" >&2
    echo "       Let it finish (or raise APT_LOCK_TIMEOUT) and run this again." >&2
    exit "$status"
  fi
  if [ -z "$waiting" ]; then
    echo "==> apt-get $1: another apt or dpkg holds its lock; waiting up to ${timeout}s." >&2
    echo "    $held" >&2
    waiting=1
  fi
  sleep "${APT_LOCK_RETRY:-2}"
done
