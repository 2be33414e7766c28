#!/usr/bin/env bash
# Project-local Redis servers on loopback, one per purpose, so `make test` never touches
# what `make run` serves:
#   run   127.0.0.1:${REDIS_PORT:-6390}, data and AOF under var/redis/<database>
#   sale  127.0.0.1:${SALE_REDIS_PORT:-6392}, var/redis-sale/<database>: make run's flash
#         sale (SECKILL_REDIS_URL), `appendfsync always` in SECKILL_DURABILITY=fsync
#   test  127.0.0.1:${TEST_REDIS_PORT:-6391}, data under var/redis-test
# Another port gets a directory of its own (var/redis-<port>, var/redis-test-<port>): two
# servers sharing one would overwrite each other's AOF and pid file.
#
# run and sale keep one data directory per database (decision 294): <database> is
# `default` while DATABASE_URL is unset, else the first 12 hex digits of its SHA-256. On
# a port where this checkout's Redis serves another database's directory, start and
# ensure stop it and start this database's, so switching DATABASE_URL brings back that
# database's own Redis data. (The Unix socket stays var/redis/redis.sock, and so on.)
#
#   scripts/redis.sh start|stop|status [run|sale|test]      (default: run)
#   scripts/redis.sh ensure [run|sale|test]
#     what `make run`, `make test` and the benchmarks need: nothing when REDIS_URL
#     (SECKILL_REDIS_URL or REDIS_URL for `sale`, TEST_REDIS_URL for `test`) points
#     elsewhere, else that Redis, started or
#     waited for. Prints "external", "running" or "started", so the caller knows
#     whether to stop it afterwards; a start that fails leaves nothing running.
#   scripts/redis.sh dir [run|sale|test]    prints the data directory, relative to the checkout
# Messages go to stderr.
set -euo pipefail
cd -P "$(dirname "$0")/.."  # physical paths, as Redis reports its dir

purpose="${2:-run}"
case "$purpose" in
  run) port="${REDIS_PORT:-6390}"; base="$PWD/var/redis"; default=6390; external="${REDIS_URL:-}"
    port_setting=REDIS_PORT ;;
  sale) port="${SALE_REDIS_PORT:-6392}"; base="$PWD/var/redis-sale"; default=6392
    external="${SECKILL_REDIS_URL:-${REDIS_URL:-}}"; port_setting=SALE_REDIS_PORT ;;
  test) port="${TEST_REDIS_PORT:-6391}"; base="$PWD/var/redis-test"; default=6391; external="${TEST_REDIS_URL:-}" ;;
  *) echo "usage: $0 start|stop|status|ensure|dir [run|sale|test]" >&2; exit 2 ;;
esac
[ "$port" = "$default" ] || base="$base-$port"
if [ "$purpose" = test ]; then
  dir="$base"  # every test empties it: no database's data to keep
elif [ -n "${DATABASE_URL:-}" ]; then
  dir="$base/$(printf %s "$DATABASE_URL" | sha256sum | cut -c1-12)"
else
  dir="$base/default"
fi
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
    --unixsocket "$base/redis.sock" --unixsocketperm 700 \
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

# The Redis on the port is this database's (0), this checkout's for another database (1:
# stopped here, so that this one's can start), or someone else's (2: left alone).
claim_port() {
  [ "$purpose" = test ] && return 0
  wait_ready || return 2
  local serving
  serving=$(redis-cli -h 127.0.0.1 -p "$port" config get dir 2>/dev/null | sed -n 2p)
  [ "$serving" = "$dir" ] && return 0
  case "$serving" in
    "$base" | "$base"/*)  # this checkout's, for another database (or from before 294)
      # Never from under a make run serving it, unless make run itself asks.
      if [ -z "${RUN_LOCK_HELD:-}" ] && [ -e var/run.lock ] && ! flock -n var/run.lock true; then
        echo "error: make run serves ${serving#"$PWD"/}, another database's, on 127.0.0.1:$port;" \
          "stop it first, or set $port_setting to another port" >&2
        return 2
      fi
      echo "redis ($purpose): 127.0.0.1:$port serves ${serving#"$PWD"/}, another database's;" \
        "stopping it for ${dir#"$PWD"/}" >&2
      stop
      return 1
      ;;
  esac
  echo "error: 127.0.0.1:$port is a Redis serving ${serving:-an unknown directory}, not this" \
    "checkout's; stop it, or set $port_setting to another port" >&2
  return 2
}

# Running already (0: nothing to start), or not (1: start it); exits on someone else's.
running() {
  alive || return 1
  local status=0
  claim_port || status=$?
  [ "$status" = 2 ] && exit 1
  [ "$status" = 0 ] && already_running
  return "$status"
}

case "${1:-}" in
  start)
    if ! running; then start; fi
    ;;
  ensure)
    if [ -n "$external" ]; then
      echo external
    elif running; then
      echo running
    else
      start || { stop; exit 1; }
      echo started
    fi
    ;;
  dir)
    echo "${dir#"$PWD"/}"
    ;;
  stop)
    stop
    ;;
  status)
    alive && echo "redis ($purpose): running on 127.0.0.1:$port" \
      || { echo "redis ($purpose): not running"; exit 1; }
    ;;
  *)
    echo "usage: $0 start|stop|status|ensure|dir [run|sale|test]" >&2
    exit 2
    ;;
esac
