"""Who the caller is for rate limits, and the per-user limits on cheap writes
(docs/product/limits.md)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory

from blogs.models import Blog, BlogComment
from follows.models import Follow
from tests.factories import BlogFactory, UserFactory
from tests.helpers import throttle_rates
from toolkit.api.clients import client_address, client_ip


def _request(remote: str, forwarded: str | None = None):
    headers: dict[str, Any] = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return RequestFactory().get("/api/x", REMOTE_ADDR=remote, **headers)


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "6.6.6.6", "10.0.0.9"),  # no proxy of ours: the header is the client's invention
        (0, None, "10.0.0.9"),
        (1, "6.6.6.6, 203.0.113.7", "203.0.113.7"),  # our proxy appended the real one
        (1, "203.0.113.7", "203.0.113.7"),
        (2, "6.6.6.6, 203.0.113.7, 10.1.1.1", "203.0.113.7"),
        (2, "203.0.113.7", "203.0.113.7"),
        (1, "", "10.0.0.9"),
    ],
)
def test_forwarded_for_is_trusted_only_for_our_proxies(settings, proxies, forwarded, expected):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": proxies}

    assert client_ip(_request("10.0.0.9", forwarded)) == expected


@pytest.mark.parametrize(
    ("forwarded", "prefix", "expected"),
    [
        ("6.6.6.6, 2001:db8:1:2:aaaa::5", 64, "2001:db8:1:2::/64"),
        ("2001:DB8:1:2:0:0:0:ffff", 64, "2001:db8:1:2::/64"),  # any spelling, one network
        ("2001:db8:1:2:aaaa::5", 48, "2001:db8:1::/48"),
        ("2001:db8:1:2:aaaa::5", 128, "2001:db8:1:2:aaaa::5"),  # each address alone
        ("fe80::1%eth0", 64, "fe80::/64"),
        ("::ffff:198.51.100.7", 64, "198.51.100.7"),  # a dual-stack socket's IPv4 client
        ("198.51.100.7", 64, "198.51.100.7"),  # IPv4 as it was
        ("unknown", 64, "unknown"),  # no address: its own bucket, as before
    ],
)
def test_an_ipv6_client_counts_by_its_network(settings, forwarded, prefix, expected) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    settings.CLIENT_IPV6_PREFIX = prefix

    assert client_ip(_request("10.0.0.9", forwarded)) == expected
    assert client_address(_request("10.0.0.9", forwarded)) == forwarded.split(", ")[-1]


def _codes_from(api, settings, addresses: list[str]) -> list[int]:
    """POST /api/auth/code from each address in turn (behind our one proxy), a new phone
    each time so that only the per-address limit can refuse."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    throttle_rates(settings, sms_ip="20/hour")
    return [
        api.post(
            "/api/auth/code",
            {"phone": f"139{i:08d}"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"6.6.6.6, {address}",  # what the client wrote, then our proxy
        ).status_code
        for i, address in enumerate(addresses)
    ]


@pytest.mark.django_db
def test_codes_from_the_addresses_of_one_ipv6_64_share_one_limit(api, settings, sms_outbox):
    one_host = [f"2001:db8:1:2:{i:x}::{i + 1:x}" for i in range(21)]
    elsewhere = ["2001:db8:1:3::1", "2001:db8:2:2::1"]  # other /64s, their own budgets

    statuses = _codes_from(api, settings, one_host + elsewhere)

    assert statuses == [202] * 20 + [429] + [202, 202]
    assert len(sms_outbox) == 22


@pytest.mark.django_db
def test_ipv4_addresses_count_alone_and_a_mapped_one_as_itself(api, settings, sms_outbox):
    many = [f"198.51.100.{i}" for i in range(21)]
    one = ["203.0.113.9"] * 10 + ["::ffff:203.0.113.9"] * 11

    statuses = _codes_from(api, settings, many + one)

    assert statuses == [202] * 21 + [202] * 20 + [429]
    assert len(sms_outbox) == 41


@pytest.mark.django_db
def test_a_prefix_of_128_counts_each_ipv6_address_alone(api, settings, sms_outbox) -> None:
    settings.CLIENT_IPV6_PREFIX = 128

    statuses = _codes_from(api, settings, [f"2001:db8:1:2::{i + 1:x}" for i in range(21)])

    assert statuses == [202] * 21


@pytest.mark.django_db
def test_logins_from_the_addresses_of_one_ipv6_64_share_one_limit(api, settings) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    throttle_rates(settings, login_ip="3/minute")

    def login(address: str) -> int:
        return api.post(
            "/api/auth/login",
            {"phone": "13912345678", "code": "000000"},
            format="json",
            HTTP_X_FORWARDED_FOR=address,
        ).status_code

    statuses = [login(f"2001:db8:9:9::{i + 1:x}") for i in range(4)]

    assert statuses == [400, 400, 400, 429]
    assert login("2001:db8:9:a::1") == 400  # the next /64: its own budget


@pytest.mark.django_db
def test_a_forged_forwarded_for_does_not_escape_the_ip_limit(api, settings, sms_outbox) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "NUM_PROXIES": 0,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "sms_ip": "2/hour",
        },
    }
    statuses = [
        api.post(
            "/api/auth/code",
            {"phone": f"1391234560{i}"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
        ).status_code
        for i in range(5)
    ]

    assert statuses == [202, 202, 429, 429, 429]
    assert len(sms_outbox) == 2


@pytest.mark.django_db
def test_blogs_are_limited_per_user(user_api, user, settings, eager_tasks) -> None:
    throttle_rates(settings, blog_user="2/hour")
    body = {"title": "t", "content": "c"}

    statuses = [user_api.post("/api/blogs", body, format="json").status_code for _ in range(3)]

    assert statuses == [201, 201, 429]
    assert Blog.objects.filter(user=user).count() == 2


@pytest.mark.django_db
def test_comments_are_limited_per_user(user_api, settings) -> None:
    throttle_rates(settings, comment_user="5/10seconds")
    blog = BlogFactory()

    statuses = [
        user_api.post(
            f"/api/blogs/{blog.id}/comments", {"content": "hi"}, format="json"
        ).status_code
        for _ in range(6)
    ]

    assert statuses == [201] * 5 + [429]
    assert BlogComment.objects.count() == 5


@pytest.mark.django_db
def test_likes_are_limited_per_user(user_api, settings) -> None:
    throttle_rates(settings, like_user="3/minute")
    blog = BlogFactory()

    responses = [user_api.post(f"/api/blogs/{blog.id}/like") for _ in range(3)]
    refused = user_api.delete(f"/api/blogs/{blog.id}/like")

    assert [r.status_code for r in responses] == [200, 200, 200]
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert user_api.get(f"/api/blogs/{blog.id}").json()["is_liked"] is True  # unlike refused


@pytest.mark.django_db
def test_follows_are_limited_per_user(user_api, user, settings) -> None:
    throttle_rates(settings, follow_user="2/minute")
    others = [UserFactory() for _ in range(3)]

    statuses = [user_api.put(f"/api/follows/{o.id}").status_code for o in others]

    assert statuses == [200, 200, 429]
    assert Follow.objects.filter(user=user).count() == 2
