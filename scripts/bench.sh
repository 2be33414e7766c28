#!/usr/bin/env bash
# `make bench-*`: run bench/<script> against `make run`'s Redis servers (ports 6390 and
# 6392 for the sale, each with the data of the bench's database; REDIS_URL for another),
# and against MariaDB with --mariadb (a throwaway one unless DATABASE_URL is
# set). A Redis this script started is stopped again however the benchmark ends, so a
# benchmark never leaves a server behind on the port `make run` uses.
#   scripts/bench.sh [--mariadb] <script.py> [args...]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

if [ "${1:-}" = --mariadb ]; then
  shift
  DATABASE_URL="${DATABASE_URL:-$(scripts/mariadb.sh start)}"
  export DATABASE_URL
fi
# Known before the Redis servers: each database has its Redis data (decision 294).
redis=$(scripts/redis.sh ensure run)
sale=""
trap 'if [ "$redis" = started ]; then "$root/scripts/redis.sh" stop run; fi
      if [ "$sale" = started ]; then "$root/scripts/redis.sh" stop sale; fi' EXIT
# make run's flash-sale Redis, for the benchmarks that run the product as make run does
# (bench/api.py, and bench/seckill.py's own-Redis row; its other rows keep the sale on
# the one above).
sale=$(scripts/redis.sh ensure sale)
if [ "$sale" != external ]; then
  export BENCH_SALE_REDIS_URL="redis://127.0.0.1:${SALE_REDIS_PORT:-6392}/0"
fi
cd bench
../.venv/bin/python "$@"
