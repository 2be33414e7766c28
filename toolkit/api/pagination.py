"""Page-number pagination (docs/product/api.md#pagination): bad numbers are a 400,
pages past the end are empty."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.utils.encoding import escape_uri_path
from rest_framework import pagination
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from toolkit.validation import parse_positive_int


class PageNumberPagination(pagination.BasePagination):
    """`?page=` (from 1) and `?page_size=` (capped at `max_page_size`).

    Counts first and skips the page query when the page lies past the end, so a
    huge page number costs one COUNT and never reaches the database as an OFFSET.
    """

    page_size = 10
    max_page_size = 50

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> list[Any]:
        self.begin(request)
        self.count = len(queryset) if isinstance(queryset, list) else queryset.count()
        offset = (self.page - 1) * self.size
        if offset >= self.count:
            return []
        return list(queryset[offset : offset + self.size])

    def begin(self, request: Any, *, fixed_size: int | None = None) -> tuple[int, int]:
        """Parse `page` (and `page_size`, unless the caller's pages have `fixed_size`,
        e.g. because they are cached page by page); returns (page, size). A caller that
        pages by itself then sets `count` and calls `get_paginated_response`."""
        params = request.GET  # a DRF Request's query_params, or a fast path's plain request
        values, errors = {}, {}
        names = [("page", 1)] + ([] if fixed_size else [("page_size", self.page_size)])
        for name, default in names:
            try:
                values[name] = parse_positive_int(params.get(name), default=default)
            except ValueError as exc:
                errors[name] = [str(exc)]
        if errors:
            raise ValidationError(errors)
        self.page = values["page"]
        self.size = fixed_size or min(values["page_size"], self.max_page_size)
        self.request = request
        return self.page, self.size

    def get_paginated_response(self, data: Any) -> Response:
        return Response(self.page_body(data))

    def page_body(self, data: Any) -> dict[str, Any]:
        """The page as sent: for a fast path to encode itself."""
        return {
            "count": self.count,
            "next": self._link(self.page + 1) if self.page * self.size < self.count else None,
            "previous": self._link(self.page - 1) if self.page > 1 else None,
            "results": data,
        }

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size

    def _link(self, page: int) -> str:
        """DRF's `replace_query_param` link (keys sorted, page 1 without `page`), built
        from the query Django already parsed rather than by re-parsing the URL: a
        noticeable part of a cached list's CPU (docs/benchmarks.md)."""
        request = self.request
        params = dict(request.GET.lists())
        if page == 1:
            params.pop("page", None)
        else:
            params["page"] = [str(page)]
        query = urlencode(sorted(params.items()), doseq=True)
        base = f"{request.scheme}://{request.get_host()}{escape_uri_path(request.path)}"
        return f"{base}?{query}" if query else base

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["count", "results"],
            "properties": {
                "count": {"type": "integer"},
                "next": {"type": "string", "nullable": True, "format": "uri"},
                "previous": {"type": "string", "nullable": True, "format": "uri"},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {"name": "page", "in": "query", "required": False, "schema": {"type": "integer"}},
            {"name": "page_size", "in": "query", "required": False, "schema": {"type": "integer"}},
        ]
