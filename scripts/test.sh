#!/usr/bin/env bash
# `make test`: make sure a Redis is up, then run the whole suite.
# TEST_REDIS_URL points at another Redis; DATABASE_URL=mysql://... runs it on MariaDB.
set -euo pipefail
cd "$(dirname "$0")/.."

started_redis=0
if [ -z "${TEST_REDIS_URL:-}" ]; then
  scripts/redis.sh status >/dev/null 2>&1 || started_redis=1
  scripts/redis.sh start  # starts it, or waits until a running one has loaded its data
fi
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$started_redis" = 1 ]; then scripts/redis.sh stop; fi
exit "$status"
