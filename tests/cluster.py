"""The test Redis Cluster (scripts/redis-cluster.sh, `make test-cluster`): killing the
master that holds a key, as a crash would, and making the cluster whole again."""

from __future__ import annotations

import os
import signal
import subprocess

from redis.cluster import key_slot

from tests.helpers import wait_until
from tests.workers import ROOT
from toolkit.redis.client import get_redis
from toolkit.redis.cluster import cluster_client


def kill_master_of(key: str, *, caught_up: bool) -> int:
    """SIGKILL the master holding `key` and wait for its replica to serve the key's slot;
    returns the dead master's port. `caught_up` waits first until the replica has applied
    everything the master wrote (a failover's usual case); without it, the kill takes
    whatever replication had not yet carried."""
    armed = ArmedKill(key)
    if caught_up:
        _replica_caught_up(armed.client, armed.master, key)
    armed.fire()
    armed.wait_promoted()
    return armed.master.port


class ArmedKill:
    """The master holding `key`, found ahead of time, so that the kill itself is one
    signal: a test firing it at a given moment of a sale (on a busy host, finding the
    node takes longer than the rest of the sale) kills it there."""

    def __init__(self, key: str) -> None:
        self.key, self.client = key, cluster_client()
        self.client.nodes_manager.initialize()  # the layout now: an earlier failover moved masters
        self.master = self.client.get_node_from_key(key)
        pidfile = ROOT / "var" / "redis-cluster" / str(self.master.port) / "redis.pid"
        self.pid = int(pidfile.read_text())

    def fire(self) -> None:
        os.kill(self.pid, signal.SIGKILL)

    def wait_promoted(self) -> None:
        """Until a replica serves the key's slot, the key in it."""

        def promoted() -> bool:
            try:
                self.client.nodes_manager.initialize()  # ask the survivors who holds it now
                node = self.client.get_node_from_key(self.key)
                return node.port != self.master.port and bool(self.client.exists(self.key))
            except Exception:
                return False

        wait_until(promoted, timeout=60, interval=0.2)


def _replica_caught_up(client, master, key: str) -> None:
    """Wait until the key's replica has applied everything its master has written (WAIT
    would only count the writes of the connection that sends it, and this one made none)."""
    written = client.info("replication", target_nodes=master)["master_repl_offset"]
    replicas = client.nodes_manager.slots_cache[key_slot(key.encode())][1:]
    assert replicas, "the test cluster gives every master a replica"

    def applied() -> bool:
        infos = [client.info("replication", target_nodes=r) for r in replicas]
        return all(info["slave_repl_offset"] >= written for info in infos)

    wait_until(applied, timeout=30, interval=0.05)


def restore_cluster() -> None:
    """Start the killed node again (it rejoins as a replica), so the cluster is whole."""
    subprocess.run([str(ROOT / "scripts" / "redis-cluster.sh"), "start"], check=True, timeout=120)
    wait_until(_answers, timeout=30)


def _answers() -> bool:
    try:
        return get_redis().ping()
    except Exception:
        return False
