#!/usr/bin/env bash
# Run a command beside N busy CPU loops, so it meets the contention of a crowded host:
#   scripts/under-load.sh N -- CMD [ARGS...]
# The loops run at the command's own priority (not niced: they must take CPU from it) and
# are killed however the command ends (its exit, Ctrl-C, a CI timeout's TERM); each also
# ends by itself after UNDER_LOAD_MAX_SECONDS (default 1200), should even that fail.
# Exits with the command's status.
set -euo pipefail

usage() { echo "usage: $0 N_BURNERS -- CMD [ARGS...]" >&2; exit 2; }
[ $# -ge 3 ] && [ "$2" = "--" ] || usage
count=$1
shift 2
case "$count" in '' | *[!0-9]*) usage ;; esac

burners=()
stop_burners() {
  trap '' INT TERM HUP  # a second signal must not cut the cleanup short
  trap - EXIT
  if [ ${#burners[@]} -gt 0 ]; then
    kill "${burners[@]}" 2>/dev/null || true
    wait "${burners[@]}" 2>/dev/null || true
  fi
}
trap stop_burners EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

for _ in $(seq "$count"); do
  timeout "${UNDER_LOAD_MAX_SECONDS:-1200}" sh -c 'while :; do :; done' &
  burners+=($!)
done
echo "under load: $count busy loops beside: $*" >&2
status=0
"$@" || status=$?
exit "$status"
