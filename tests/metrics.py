"""Reading /metrics in tests: the scrape token and the samples of an exposition."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

TOKEN = "test-metrics-token"  # dianping/settings/test.py

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client) -> Samples:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return samples_of(response.content.decode())


def samples_of(exposition: str) -> Samples:
    """Every sample of a Prometheus text exposition, by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)
