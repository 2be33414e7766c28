#!/usr/bin/env bash
# `make test`: make sure the test Redis is up (its own server, never `make run`'s), then
# run the whole suite. TEST_REDIS_URL points at another Redis; DATABASE_URL=mysql://...
# runs it on MariaDB.
set -euo pipefail
cd "$(dirname "$0")/.."

redis=$(scripts/redis.sh ensure test)  # unless TEST_REDIS_URL is set; waits for it to load
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$redis" = started ]; then scripts/redis.sh stop test; fi
exit "$status"
