"""Who the caller is for rate limits, and the per-user limits on cheap writes (SPEC §0)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory

from blogs.models import Blog, BlogComment
from dianping.api.clients import client_ip
from follows.models import Follow
from tests.factories import BlogFactory, UserFactory
from tests.helpers import throttle_rates


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


@pytest.mark.django_db
def test_a_forged_forwarded_for_does_not_escape_the_ip_limit(api, settings, sms_outbox) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "NUM_PROXIES": 0,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "sms_ip": "2/hour",
        },
    }  # fmt: skip
    statuses = [
        api.post(
            "/api/auth/code", {"phone": f"1391234560{i}"}, format="json",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
        ).status_code
        for i in range(5)
    ]  # fmt: skip

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
