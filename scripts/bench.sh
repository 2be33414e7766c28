#!/usr/bin/env bash
# `make bench-*`: run bench/<script> against `make run`'s Redis (port 6390; REDIS_URL for
# another), and against MariaDB with --mariadb (a throwaway one unless DATABASE_URL is
# set). A Redis this script started is stopped again however the benchmark ends, so a
# benchmark never leaves a server behind on the port `make run` uses.
#   scripts/bench.sh [--mariadb] <script.py> [args...]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

redis=$(scripts/redis.sh ensure run)
trap 'if [ "$redis" = started ]; then "$root/scripts/redis.sh" stop run; fi' EXIT
if [ "${1:-}" = --mariadb ]; then
  shift
  DATABASE_URL="${DATABASE_URL:-$(scripts/mariadb.sh start)}"
  export DATABASE_URL
fi
cd bench
../.venv/bin/python "$@"
