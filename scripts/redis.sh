#!/usr/bin/env bash
# Project-local Redis on loopback, data and AOF under var/redis.
#   scripts/redis.sh start|stop|status
set -euo pipefail
cd "$(dirname "$0")/.."

port="${REDIS_PORT:-6390}"
dir="$PWD/var/redis"
pidfile="$dir/redis.pid"

ping() { redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; }

case "${1:-}" in
  start)
    if ping; then
      echo "redis: already running on 127.0.0.1:$port"
      exit 0
    fi
    if ! command -v redis-server >/dev/null 2>&1; then
      echo "error: redis-server is not installed; run scripts/bootstrap-system.sh as root" >&2
      exit 1
    fi
    mkdir -p "$dir"
    # appendfsync everysec: a crash loses at most about one second of writes.
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" \
      --daemonize yes --pidfile "$pidfile" --logfile "$dir/redis.log" \
      --unixsocket "$dir/redis.sock" --unixsocketperm 700 \
      --appendonly yes --appendfsync everysec --save "" \
      --maxclients 10000 --protected-mode yes
    for _ in $(seq 100); do ping && break; sleep 0.05; done
    ping || { echo "error: redis did not start; see $dir/redis.log" >&2; exit 1; }
    echo "redis: started on 127.0.0.1:$port (data in var/redis)"
    ;;
  stop)
    if ping; then
      redis-cli -h 127.0.0.1 -p "$port" shutdown >/dev/null 2>&1 || true
      for _ in $(seq 100); do ping || break; sleep 0.05; done
      echo "redis: stopped"
    fi
    ;;
  status)
    ping && echo "redis: running on 127.0.0.1:$port" || { echo "redis: not running"; exit 1; }
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
