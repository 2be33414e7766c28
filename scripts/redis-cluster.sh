#!/usr/bin/env bash
# A local Redis Cluster for `make test-cluster`: 3 masters, a replica each and one spare
# replica, on loopback ports of their own (${CLUSTER_PORT:-7001} and the six after it),
# data under var/redis-cluster/<port>, AOF on as in production. The spare is what keeps
# SECKILL_DURABILITY=replica selling after a failover: the promoted replica has no replica
# of its own, and Redis migrates the spare to it (cluster-migration-barrier 1,
# docs/operations.md "A master fails").
#   scripts/redis-cluster.sh start   prints the URL of one node (any node will do)
#   scripts/redis-cluster.sh stop
#   scripts/redis-cluster.sh status
#   scripts/redis-cluster.sh nodes   prints every node as REDIS_CLUSTER_NODES takes them
set -euo pipefail
cd "$(dirname "$0")/.."

first="${CLUSTER_PORT:-7001}"
ports=()
for i in 0 1 2 3 4 5 6; do ports+=($((first + i))); done
root="$PWD/var/redis-cluster"

up() { [ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ]; }
healthy() { redis-cli -p "$first" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }
synced_replicas() {
  local count=0
  for port in "${ports[@]}"; do
    redis-cli -p "$port" info replication 2>/dev/null | grep -q '^master_link_status:up' \
      && count=$((count + 1))
  done
  echo "$count"
}

case "${1:-}" in
  start)
    for port in "${ports[@]}"; do  # every node, also one killed by the failover test
      up "$port" && continue
      mkdir -p "$root/$port"
      redis-server --port "$port" --bind 127.0.0.1 --dir "$root/$port" \
        --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
        --appendonly yes --appendfsync everysec --save "" --daemonize yes \
        --logfile "$root/$port/redis.log" --pidfile "$root/$port/redis.pid" >&2
    done
    for port in "${ports[@]}"; do
      for _ in $(seq 100); do up "$port" && break; sleep 0.05; done
    done
    known=$(redis-cli -p "$first" cluster info | sed -n 's/^cluster_known_nodes:\([0-9]*\).*/\1/p')
    if [ "${known:-1}" -lt ${#ports[@]} ]; then  # fresh nodes: one cluster, a replica each, a spare
      redis-cli --cluster create $(printf '127.0.0.1:%s ' "${ports[@]}") \
        --cluster-replicas 1 --cluster-yes >"$root/create.log" 2>&1
    fi
    for _ in $(seq 200); do healthy && break; sleep 0.1; done
    healthy || { echo "error: the cluster did not come up; see $root" >&2; exit 1; }
    # Every replica in sync: a failover (and its test) needs one per master.
    for _ in $(seq 300); do
      [ "$(synced_replicas)" -ge 4 ] && break
      sleep 0.1
    done
    echo "redis cluster: up on 127.0.0.1:${ports[0]}..${ports[6]}" >&2
    echo "redis://127.0.0.1:$first/0"
    ;;
  stop)
    for port in "${ports[@]}"; do
      redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    done
    # A test cluster keeps nothing between runs; another CLUSTER_PORT's keeps its own.
    for port in "${ports[@]}"; do rm -rf "${root:?}/$port"; done
    rmdir "$root" 2>/dev/null || true
    echo "redis cluster: stopped" >&2
    ;;
  nodes)
    printf '127.0.0.1:%s,' "${ports[@]}" | sed 's/,$//'
    echo
    ;;
  status)
    healthy && redis-cli -p "$first" cluster nodes || { echo "redis cluster: not running"; exit 1; }
    ;;
  *)
    echo "usage: $0 start|stop|status|nodes" >&2
    exit 2
    ;;
esac
