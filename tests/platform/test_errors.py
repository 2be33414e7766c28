"""The API's error contract (docs/product/errors.md): every refusal is JSON `{"detail",
"code"}` with the right status, never an HTML page or a 500, and every code comes from
an app's enum."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts.models import User
from dianping.views import bad_request
from toolkit.api.parsers import MAX_DEPTH

ROOT = Path(__file__).resolve().parents[2]
APPS = [
    "dianping",
    "accounts",
    "shops",
    "vouchers",
    "blogs",
    "follows",
    "signin",
    "merchants",
    "rankings",
]
NOT_FOUND = {"detail": "Not found.", "code": "not_found"}  # asked for in English


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete", "options"])
@pytest.mark.parametrize(
    "path",
    [
        "/api/no-such-thing",
        "/api/vouchers/0/seckill",
        f"/api/vouchers/{2**63}/seckill",
        f"/api/shops/{2**63}",
        "/api/shops/abc",
        "/api/voucher-orders/99999999999999999999999/pay",
        "/api/blogs/1/nope",
    ],
)
def test_any_method_on_an_unknown_api_path_is_a_json_404(method: str, path: str) -> None:
    # As a browser would be checked, cookies and all; one that asks for English.
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.cookies["csrftoken"] = "a" * 32

    if method in ("get", "options"):
        response = getattr(client, method)(path)
    else:
        response = getattr(client, method)(path, "{}", content_type="application/json")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == NOT_FOUND


def _nested(depth: int) -> str:
    return '{"phone": ' + "[" * depth + "]" * depth + ', "code": "123456"}'


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [MAX_DEPTH, 1000, 100_000])
def test_deeply_nested_json_is_a_400_and_changes_nothing(api, depth, redis_client) -> None:
    before = set(redis_client.scan_iter())
    response = api.post("/api/auth/login", _nested(depth), content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"
    # Only the per-IP login limiter counted the attempt: no code, token or user.
    new_keys = set(redis_client.scan_iter()) - before
    assert all(key.startswith(b"rl:") for key in new_keys)
    assert not User.objects.exists()


@pytest.mark.django_db
def test_nesting_within_the_limit_reaches_validation(api) -> None:
    response = api.post("/api/auth/login", _nested(MAX_DEPTH - 2), content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"  # parsed, then refused as not a phone
    assert "phone" in response.json()["errors"]


@pytest.mark.django_db
@pytest.mark.parametrize("body", ["{", "[1,", '{"phone": "1"} trailing', "\xff\xfe", "NaN"])
def test_malformed_json_is_a_400(api, body) -> None:
    response = api.post("/api/auth/code", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


def test_a_request_refused_before_any_view_answers_json() -> None:
    response = Client(HTTP_HOST="evil.example.com").get("/api/shop-types")

    assert response.status_code == 400
    # In the default language: the locale is chosen before the host is checked.
    assert response.json() == {"detail": "请求有误。", "code": "bad_request"}


def test_a_body_too_large_for_a_middleware_is_a_json_413() -> None:
    from django.core.exceptions import RequestDataTooBig

    response = bad_request(RequestFactory().post("/api/anything"), RequestDataTooBig())

    assert response.status_code == 413
    assert json.loads(response.content)["code"] == "payload_too_large"


@pytest.mark.django_db
def test_the_fast_paths_answer_other_methods_through_drf(staff_api) -> None:
    seckill = staff_api.get("/api/vouchers/1/seckill")
    shop = APIClient().post("/api/shops/1", {}, format="json")

    assert seckill.status_code == 405
    assert seckill.json()["code"] == "method_not_allowed"
    assert "POST" in seckill["Allow"]
    assert shop.status_code in (401, 405)  # staff writes go to DRF, anonymous refused
    assert shop["Content-Type"] == "application/json"


@pytest.mark.parametrize("path", ["/api/ping", "/api/ping/redis"])
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_the_baseline_views_refuse_writes_with_a_json_405(path: str, method: str) -> None:
    response = getattr(Client(), method)(path, HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert response["Allow"] == "GET, HEAD"
    assert "\\u" not in response.content.decode()  # UTF-8 as DRF sends it, not escaped


def _code_literals() -> list[str]:
    """`code="..."` keyword arguments and `default_code = "..."` in the apps' own code:
    codes must be members of an app's Code enum instead, so each app lists its codes."""
    found = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                value = None
                if isinstance(node, ast.keyword) and node.arg == "code":
                    value = node.value
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if any(getattr(t, "id", "") == "default_code" for t in targets):
                        value = node.value
                if isinstance(value, ast.Constant | ast.JoinedStr):
                    assert isinstance(node, ast.keyword | ast.stmt)
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_error_code_comes_from_an_app_enum() -> None:
    assert _code_literals() == []
