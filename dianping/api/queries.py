"""Query strings, validated the way bodies are: by a serializer of strict fields
(dianping.api.fields), which is also what the OpenAPI schema shows for the operation."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework import serializers
from rest_framework.request import Request


def query_params(
    request: Request | HttpRequest, serializer_class: type[serializers.Serializer]
) -> Any:
    """The request's query parameters as `serializer_class` validates them (400 if not);
    a DRF request's or a fast path's plain one."""
    query = serializer_class(data=request.GET)
    query.is_valid(raise_exception=True)
    return query.validated_data
