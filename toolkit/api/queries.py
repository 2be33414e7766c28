"""Query strings, validated the way bodies are: by a serializer of strict fields
(toolkit.api.fields), which is also what the OpenAPI schema shows for the operation."""

from __future__ import annotations

import threading
from typing import Any

from django.http import HttpRequest
from rest_framework import serializers
from rest_framework.request import Request

# One bound serializer per class and thread, given each request's query in turn: building
# one deep-copies its fields, which cost the hot reads more than validating (about a
# third of a shop list's CPU). Validation state lives on the instance, hence per thread.
_reused = threading.local()
_STATE = ("_validated_data", "_errors", "_data")
# What an empty query validates to, per class: every query field's default is a constant,
# and most reads of a list come without a query.
_empty_query_values: dict[type[serializers.Serializer], dict[str, Any]] = {}


def query_params(
    request: Request | HttpRequest, serializer_class: type[serializers.Serializer]
) -> Any:
    """The request's query parameters as `serializer_class` validates them (400 if not);
    a DRF request's or a fast path's plain one."""
    if not request.GET and serializer_class in _empty_query_values:
        return dict(_empty_query_values[serializer_class])
    serializers_ = _reused.__dict__.setdefault("serializers", {})
    query = serializers_.get(serializer_class)
    if query is None:
        query = serializers_[serializer_class] = serializer_class(data=request.GET)
    else:
        query.initial_data = request.GET
        for name in _STATE:
            query.__dict__.pop(name, None)
    query.is_valid(raise_exception=True)
    if not request.GET:
        _empty_query_values[serializer_class] = dict(query.validated_data)
    return query.validated_data
