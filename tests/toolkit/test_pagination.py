"""Page links are DRF's, built without re-parsing the URL (toolkit.api.pagination)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from rest_framework.utils.urls import remove_query_param, replace_query_param

from toolkit.api.pagination import PageNumberPagination


@pytest.mark.parametrize(
    "path",
    [
        "/api/shops",
        "/api/shops?page=2",
        "/api/shops?type_id=1&x=121.47&y=31.23&page=3&page_size=5",
        "/api/shops?name=%E7%81%AB%E9%94%85+%26+bar&zeta=&alpha=1&alpha=2",
        "/api/users/7/blogs?page=2&q=a%2Bb%3Dc",
        "/api/%E5%BA%97/x?page=2",
    ],
)
@pytest.mark.parametrize("page", [1, 2, 9])
def test_links_are_drf_s(settings, path: str, page: int) -> None:
    settings.ALLOWED_HOSTS = ["testserver"]
    request = RequestFactory().get(path)
    paginator = PageNumberPagination()
    paginator.begin(request)
    url = request.build_absolute_uri()
    expected = (
        remove_query_param(url, "page") if page == 1 else replace_query_param(url, "page", page)
    )

    assert paginator._link(page) == expected
