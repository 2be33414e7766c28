"""`GET /api/search`: public, page-number paginated, served without DRF for GETs (the
function is documented for the schema, toolkit.api.fastpath)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny

from toolkit.api.fastpath import fast_path, json_response
from toolkit.api.pageviews import count_page
from toolkit.api.pagination import PageNumberPagination
from toolkit.api.queries import query_params
from toolkit.api.schema import PAGE_PARAMETERS, api_errors
from toolkit.api.throttles import throttle
from toolkit.api.viewer import touch_viewer

from . import selectors
from .serializers import SearchQuerySerializer, search_page_serializer
from .tokenizer import query_terms


class SearchPagination(PageNumberPagination):
    page_size = 10
    max_page_size = 50


@fast_path("GET", "list", permission_classes=[AllowAny])
@extend_schema(
    parameters=[SearchQuerySerializer, *PAGE_PARAMETERS],
    responses=search_page_serializer(),
)
# 429: limited in the view (decision 279), the fast path has no DRF throttles; 404: a
# `city` of no city.
@api_errors(404, 429)
def search_view(request: HttpRequest) -> HttpResponse:
    """Shops, notes or users matching the words of `q` (Chinese is segmented into
    words), 10 a page, `page_size` up to 50: those matching the most words first, then
    those matching in names and titles, then the most popular (shops by score and
    reviews, notes by likes, users by followers). Each result is the kind's usual list
    item plus `highlight`: the fields shown, cut into fragments, the hits marked.
    Shops are those of one city (`city`, the default city without it).
    Limited per client address for anonymous callers and per user for signed-in
    ones (429 with Retry-After past it)."""
    viewer = touch_viewer(request)
    # Before any parsing, as DRF runs its throttles (decision 279).
    if viewer is None:
        throttle("search_ip", request)
    else:
        throttle("search_user", request, user_id=viewer["id"])
    params = query_params(request, SearchQuerySerializer)
    paginator = SearchPagination()
    paginator.begin(request)
    paginator.count, items = selectors.search(
        kind=params["kind"],
        query_terms=query_terms(params["q"]),
        offset=paginator.offset,
        limit=paginator.size,
        viewer_id=viewer["id"] if viewer else None,
        city=params.get("city"),
    )
    if paginator.page == 1:  # a search's later pages are the same page scrolled
        count_page(request, "search", viewer["id"] if viewer else None)
    return json_response(paginator.page_body(items))
