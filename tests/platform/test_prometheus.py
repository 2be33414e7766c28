"""Debian's Prometheus against the checked-in config and rules (docs/prometheus/): the
rules pass their own unit tests, and a real Prometheus scraping a production-shaped
stack (granian, a Celery worker and beat, multiprocess metrics) sees a sale's counters
move, agrees with `/metrics` and the admin's live sale numbers, and fires the drain and
worker alerts once the worker is stopped."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings
from django.test import Client, override_settings

from accounts.tokens import tokens_issue
from tests import servers
from tests.factories import UserFactory
from tests.helpers import free_port, wait_until
from tests.metrics import Samples, samples_of, value
from tests.vouchers.sales import start_sale
from tests.workers import ROOT, current_database_url, kill, start_celery
from vouchers.models import VoucherOrder

pytestmark = pytest.mark.slow

CONFIG = ROOT / "docs" / "prometheus"
TOKEN = "prometheus-test-token"
# Above the drain's interval (10 s: the settings refuse less), with room for a worker
# slowed by a busy host to pick its task up.
DRAIN_STALL_SECONDS = 15


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} not found: `make test` installs Debian's prometheus")
    return path


def test_the_alert_rules_pass_their_unit_tests_and_the_config_loads(tmp_path: Path) -> None:
    """promtool's own checks: the rules parse and every case of alerts.test.yml holds
    (each rule fires on the series it names, after its hold time, and not before)."""
    promtool = _tool("promtool")
    for args in (["check", "rules", "alerts.yml"], ["test", "rules", "alerts.test.yml"]):
        done = subprocess.run(
            [promtool, *args], cwd=CONFIG, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stdout + done.stderr
    config = _config(tmp_path, target="127.0.0.1:8000", rules=CONFIG / "alerts.yml")
    done = subprocess.run(
        [promtool, "check", "config", str(config)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _config(tmp: Path, *, target: str, rules: Path) -> Path:
    """The checked-in prometheus.yml, pointed at `target`, scraping and evaluating every
    second, with the token in a file of the test's own."""
    config = yaml.safe_load((CONFIG / "prometheus.yml").read_text())
    config["global"].update(scrape_interval="1s", evaluation_interval="1s")
    config["rule_files"] = [str(rules)]
    (job,) = config["scrape_configs"]
    token_file = tmp / "dianping-token"
    token_file.write_text(TOKEN)
    job["authorization"]["credentials_file"] = str(token_file)
    job["static_configs"] = [{"targets": [target]}]
    path = tmp / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    return path


def _quick_rules(tmp: Path) -> Path:
    """alerts.yml with every hold time (`for`) cut to 2 s; the expressions are verbatim."""
    rules = yaml.safe_load((CONFIG / "alerts.yml").read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            if "for" in rule:
                rule["for"] = "2s"
    path = tmp / "alerts.yml"
    path.write_text(yaml.safe_dump(rules))
    return path


@dataclass
class Running:
    url: str  # the web server's
    prometheus: str
    processes: dict[str, subprocess.Popen]
    secret_key: str
    tmp: Path

    def query(self, promql: str) -> list[dict[str, Any]]:
        """The result vector of an instant query to Prometheus's HTTP API."""
        query = urllib.parse.urlencode({"query": promql})
        status, _, body = servers.call(f"{self.prometheus}/api/v1/query?{query}")
        answer = json.loads(body)
        assert (status, answer["status"]) == (200, "success"), answer
        return answer["data"]["result"]

    def number(self, promql: str) -> float | None:
        result = self.query(promql)
        return float(result[0]["value"][1]) if result else None

    def scrape(self) -> Samples:
        status, _, body = servers.call(f"{self.url}/metrics", Authorization=f"Bearer {TOKEN}")
        assert status == 200
        return samples_of(body.decode())

    def admin_numbers(self, voucher_id: int) -> dict[str, Any]:
        """The admin live page's numbers, as an operator's browser reads them."""
        operator = UserFactory(is_staff=True, is_superuser=True)
        with override_settings(SECRET_KEY=self.secret_key):  # the server's: its sessions
            client = Client()
            client.force_login(operator)
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        status, _, body = servers.call(
            f"{self.url}/admin/vouchers/voucher/{voucher_id}/live/numbers/",
            Cookie=f"{settings.SESSION_COOKIE_NAME}={session}",
        )
        assert status == 200, body[:300]
        return json.loads(body)

    def logs(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
            for log in sorted(self.tmp.glob("*.log"))
        )


@pytest.fixture
def running(tmp_path: Path, transactional_db) -> Iterator[Running]:
    """Web, worker and beat on the suite's Redis and database, counting into one
    multiprocess directory, and a Prometheus scraping the web every second. Health's
    thresholds are cut to seconds (the rules read them from the metrics), the drain's no
    lower than a healthy drain's lag can be: beat starts a drain one interval after it
    starts, so an order may wait that long with nothing wrong (decision 296)."""
    prometheus = _tool("prometheus")
    secret_key = secrets.token_urlsafe(50)
    env = servers.production_env(
        current_database_url(),
        tmp_path,
        SECRET_KEY=secret_key,
        METRICS_TOKEN=TOKEN,
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
        SECKILL_DRAIN_STALL_SECONDS=str(DRAIN_STALL_SECONDS),
        HEARTBEAT_INTERVAL="2",
        LOG_LEVEL="WARNING",
    )
    processes: dict[str, subprocess.Popen] = {}
    try:
        processes["web"], url = servers.start_web(env, workers=2, log=tmp_path / "web.log")
        processes["worker"] = start_celery(
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            "2",
            "--loglevel",
            "WARNING",
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
            env=env,
            log=tmp_path / "worker.log",
        )
        processes["beat"] = start_celery(
            "beat",
            "--loglevel",
            "WARNING",
            "--schedule",
            str(tmp_path / "beat-schedule"),
            env=env,
            log=tmp_path / "beat.log",
        )
        port = free_port()
        config = _config(tmp_path, target=url.removeprefix("http://"), rules=_quick_rules(tmp_path))
        processes["prometheus"] = subprocess.Popen(
            [
                prometheus,
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--log.level=warn",
            ],
            stdout=(tmp_path / "prometheus.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        stack = Running(url, f"http://127.0.0.1:{port}", processes, secret_key, tmp_path)
        wait_until(lambda: servers.answers(f"{stack.prometheus}/-/ready"), timeout=30)
        yield stack
    finally:
        for process in processes.values():
            if process.poll() is None:
                kill(process)
        if "stack" in locals():
            print(stack.logs())  # pytest shows it with a failure


def test_prometheus_sees_a_sale_as_the_metrics_and_the_admin_do_and_alerts_without_a_worker(
    running: Running,
) -> None:
    sale = start_sale(stock=20)
    voucher = str(sale.id)
    tokens = tokens_issue([UserFactory() for _ in range(6)])
    wait_until(lambda: running.number('up{job="dianping"}') == 1, timeout=30, interval=0.5)
    # A healthy stack first: beat and a worker have run the heartbeat (on a busy host a
    # worker takes many seconds to start, and an order meanwhile waits, as it should).
    heartbeat = "max(dianping_worker_heartbeat_age_seconds)"
    wait_until(lambda: running.number(heartbeat) is not None, timeout=120, interval=0.5)
    grab = f"{running.url}/api/vouchers/{sale.id}/seckill"

    statuses = [servers.call(grab, "POST", Authorization=f"Bearer {t}")[0] for t in tokens[:5]]
    statuses.append(servers.call(grab, "POST", Authorization=f"Bearer {tokens[0]}")[0])
    assert statuses == [200] * 5 + [409]
    wait_until(lambda: VoucherOrder.objects.filter(voucher=sale).count() == 5, timeout=60)

    # Prometheus scraped the counters moving, and agrees with /metrics and the admin.
    accepted = f'sum(dianping_seckill_requests_total{{voucher="{voucher}", verdict="accepted"}})'
    duplicate = accepted.replace('"accepted"', '"duplicate"')
    stock_left = f'max(dianping_seckill_stock_left{{voucher="{voucher}"}})'
    wait_until(
        lambda: (
            (running.number(accepted), running.number(duplicate), running.number(stock_left))
            == (5, 1, 15)
        ),
        timeout=30,
        interval=0.5,
    )
    samples = running.scrape()
    sale_total = "dianping_seckill_requests_total"
    assert value(samples, sale_total, voucher=voucher, verdict="accepted") == 5
    assert value(samples, sale_total, voucher=voucher, verdict="duplicate") == 1
    assert value(samples, "dianping_seckill_stock_left", voucher=voucher) == 15
    admin = running.admin_numbers(sale.id)
    assert (admin["accepted"], admin["refused"], admin["stock_left"]) == (5, {"duplicate": 1}, 15)
    assert admin["persisted"] == 5
    persisted = 'sum(dianping_drain_orders_total{outcome="persisted"})'
    wait_until(lambda: running.number(persisted) == 5, timeout=30, interval=0.5)
    assert running.query('ALERTS{alertstate="firing"}') == []

    # The worker stops: the next order waits, and the drain and worker alerts fire.
    kill(running.processes["worker"])
    status = servers.call(grab, "POST", Authorization=f"Bearer {tokens[5]}")[0]
    assert status == 200

    def firing() -> set[str]:
        return {
            alert["metric"]["alertname"]
            for alert in running.query("ALERTS")
            if alert["metric"]["alertstate"] == "firing"
        }

    wait_until(
        lambda: {"DianpingDrainStalled", "DianpingWorkerSilent"} <= firing(),
        timeout=DRAIN_STALL_SECONDS + 60,
        interval=0.5,
    )
    assert firing() == {"DianpingDrainStalled", "DianpingWorkerSilent"}  # nothing else
    status, _, body = servers.call(f"{running.url}/api/health")
    health = json.loads(body)
    assert (status, health["drain"], health["worker"]) == (503, "stalled", "stalled")
    assert running.number(f'sum(dianping_seckill_pending_orders{{shard="{_shard(sale.id)}"}})') == 1


def _shard(voucher_id: int) -> int:
    from vouchers.sale.shard import shard_of

    return shard_of(voucher_id)
