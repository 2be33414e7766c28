#!/usr/bin/env bash
# `make test-cluster`: the whole suite on a local Redis Cluster (3 masters, 3 replicas,
# scripts/redis-cluster.sh), with Celery's broker on the single test Redis (kombu has no
# Cluster transport). Stops the cluster afterwards; DATABASE_URL as for `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

broker=$(scripts/redis.sh ensure test)
cluster_url=$(scripts/redis-cluster.sh start)
status=0
REDIS_CLUSTER=true TEST_REDIS_URL="$cluster_url" \
  CELERY_BROKER_URL="redis://127.0.0.1:${TEST_REDIS_PORT:-6391}/14" \
  .venv/bin/python -m pytest "$@" || status=$?
scripts/redis-cluster.sh stop
if [ "$broker" = started ]; then scripts/redis.sh stop test; fi
exit "$status"
