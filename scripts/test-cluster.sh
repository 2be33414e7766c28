#!/usr/bin/env bash
# `make test-cluster`: the whole suite on a local Redis Cluster (3 masters, 3 replicas,
# scripts/redis-cluster.sh), with Celery's broker on the single test Redis (kombu has no
# Cluster transport). Stops the cluster afterwards, however the run ends (Ctrl-C and a
# CI timeout included); DATABASE_URL as for `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

broker=""
cluster=""
cleanup() {
  trap '' INT TERM HUP  # a second signal must not cut the cleanup short
  trap - EXIT
  set +e
  if [ -n "$cluster" ]; then scripts/redis-cluster.sh stop; fi
  if [ "$broker" = started ]; then scripts/redis.sh stop test; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

broker=$(scripts/redis.sh ensure test)
cluster=started  # set first: a start that fails half-way is stopped too
cluster_url=$(scripts/redis-cluster.sh start)
status=0
REDIS_CLUSTER=true TEST_REDIS_URL="$cluster_url" REDIS_CLUSTER_NODES="$(scripts/redis-cluster.sh nodes)" \
  CELERY_BROKER_URL="redis://127.0.0.1:${TEST_REDIS_PORT:-6391}/14" \
  .venv/bin/python -m pytest "$@" || status=$?
exit "$status"
