"""Query strings (toolkit.api.queries): an empty query's values are remembered per
serializer class, and only an empty query's."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from toolkit.api import fields
from toolkit.api.queries import query_params


class _Page(serializers.Serializer):
    size = fields.IntegerField(min_value=1, max_value=50, default=10)


class _Needs(serializers.Serializer):
    day = fields.IntegerField(min_value=1, max_value=31)


def _get(query: str):
    return RequestFactory().get(f"/x?{query}")


def test_an_empty_query_gets_the_defaults_whatever_came_before() -> None:
    assert query_params(_get(""), _Page) == {"size": 10}
    assert query_params(_get("size=3"), _Page) == {"size": 3}
    values = query_params(_get(""), _Page)
    assert values == {"size": 10}
    values["size"] = 99  # a caller's change stays its own
    assert query_params(_get(""), _Page) == {"size": 10}
    with pytest.raises(ValidationError):
        query_params(_get("size=0"), _Page)


def test_an_empty_query_that_misses_a_required_field_is_refused_every_time() -> None:
    for _ in range(2):
        with pytest.raises(ValidationError):
            query_params(_get(""), _Needs)
    assert query_params(_get("day=5"), _Needs) == {"day": 5}
