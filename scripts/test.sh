#!/usr/bin/env bash
# `make test`: make sure a Redis is up, then run the whole suite.
# TEST_REDIS_URL points at another Redis; DATABASE_URL=mysql://... runs it on MariaDB.
set -euo pipefail
cd "$(dirname "$0")/.."

started_redis=0
if [ -z "${TEST_REDIS_URL:-}" ] && ! scripts/redis.sh status >/dev/null 2>&1; then
  scripts/redis.sh start
  started_redis=1
fi
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$started_redis" = 1 ]; then scripts/redis.sh stop; fi
exit "$status"
