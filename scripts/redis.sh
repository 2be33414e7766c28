#!/usr/bin/env bash
# Project-local Redis servers on loopback, one per purpose, so `make test` never touches
# what `make run` serves:
#   run   127.0.0.1:${REDIS_PORT:-6390}, data and AOF under var/redis
#   sale  127.0.0.1:${SALE_REDIS_PORT:-6392}, var/redis-sale: make run's flash sale
#         (SECKILL_REDIS_URL), `appendfsync always` in SECKILL_DURABILITY=fsync
#   test  127.0.0.1:${TEST_REDIS_PORT:-6391}, data under var/redis-test
# Another port gets a directory of its own (var/redis-<port>, var/redis-test-<port>): two
# servers sharing one would overwrite each other's AOF and pid file.
#
#   scripts/redis.sh start|stop|status [run|sale|test]      (default: run)
#   scripts/redis.sh ensure [run|sale|test]
#     what `make run`, `make test` and the benchmarks need: nothing when REDIS_URL
#     (SECKILL_REDIS_URL or REDIS_URL for `sale`, TEST_REDIS_URL for `test`) points
#     elsewhere, else that Redis, started or
#     waited for. Prints "external", "running" or "started", so the caller knows
#     whether to stop it afterwards; a start that fails leaves nothing running.
# Messages go to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

purpose="${2:-run}"
case "$purpose" in
  run) port="${REDIS_PORT:-6390}"; dir="$PWD/var/redis"; default=6390; external="${REDIS_URL:-}" ;;
  sale) port="${SALE_REDIS_PORT:-6392}"; dir="$PWD/var/redis-sale"; default=6392
    external="${SECKILL_REDIS_URL:-${REDIS_URL:-}}" ;;
  test) port="${TEST_REDIS_PORT:-6391}"; dir="$PWD/var/redis-test"; default=6391; external="${TEST_REDIS_URL:-}" ;;
  *) echo "usage: $0 start|stop|status|ensure [run|sale|test]" >&2; exit 2 ;;
esac
[ "$port" = "$default" ] || dir="$dir-$port"
pidfile="$dir/redis.pid"

# alive: something answers on the port; ready: it answers PONG (not "LOADING": after a
# restart Redis replays its AOF before serving, which takes a while for a big one).
alive() { [ -n "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" ]; }
ready() { [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]; }
wait_ready() {
  for _ in $(seq 1200); do ready && return 0; sleep 0.05; done
  echo "error: redis ($purpose) is not ready after 60 s; see $dir/redis.log" >&2
  return 1
}

# Called in `||` lists, where `set -e` does not apply: every step returns on failure.
start() {
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "error: redis-server is not installed; run scripts/bootstrap-system.sh as root" >&2
    return 1
  fi
  mkdir -p "$dir" || return 1
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" \
    --daemonize yes --pidfile "$pidfile" --logfile "$dir/redis.log" \
    --unixsocket "$dir/redis.sock" --unixsocketperm 700 \
    --appendonly yes --appendfsync "$(appendfsync)" --save "" \
    --maxclients 10000 --protected-mode yes >&2 || return 1
  wait_ready || return 1
  echo "redis ($purpose): started on 127.0.0.1:$port (data in ${dir#"$PWD"/})" >&2
}

stop() {
  if alive; then
    redis-cli -h 127.0.0.1 -p "$port" shutdown >/dev/null 2>&1 || true
    for _ in $(seq 600); do alive || break; sleep 0.05; done
    echo "redis ($purpose): stopped" >&2
  fi
}

# make run's sale Redis, in SECKILL_DURABILITY=fsync (the default), answers a write once
# its AOF is on disk. The others write it every second: a crash loses about the last
# second (tokens, likes, caches: docs/operations.md says what that means), and every
# signed-in request's token refresh does not wait for a disk.
appendfsync() {
  if [ "$purpose" = sale ] && [ "${SECKILL_DURABILITY:-fsync}" = fsync ]; then
    echo always
  else
    echo everysec
  fi
}

already_running() {
  wait_ready
  # One started before this setting (or by hand) is brought in line; it is ours.
  redis-cli -h 127.0.0.1 -p "$port" config set appendfsync "$(appendfsync)" >/dev/null
  echo "redis ($purpose): already running on 127.0.0.1:$port" >&2
}

case "${1:-}" in
  start)
    if alive; then already_running; else start; fi
    ;;
  ensure)
    if [ -n "$external" ]; then
      echo external
    elif alive; then
      already_running
      echo running
    else
      start || { stop; exit 1; }
      echo started
    fi
    ;;
  stop)
    stop
    ;;
  status)
    alive && echo "redis ($purpose): running on 127.0.0.1:$port" \
      || { echo "redis ($purpose): not running"; exit 1; }
    ;;
  *)
    echo "usage: $0 start|stop|status|ensure [run|sale|test]" >&2
    exit 2
    ;;
esac
