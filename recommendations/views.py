"""`GET /api/recommendations`: "guess you like", for signed-in readers, read without DRF
(toolkit.api.fastpath)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated

from accounts import tokens
from shops import cities
from toolkit.api.fastpath import fast_path, json_bytes
from toolkit.api.queries import query_params
from toolkit.api.schema import api_errors
from toolkit.errors import NotAuthenticated

from . import selectors
from .serializers import RecommendationQuerySerializer, RecommendationsSerializer


def _recommendations(request: HttpRequest) -> HttpResponse:
    """The token's round trip with the reader's state, one for the neighbour lists, the
    shops from their cache."""
    viewer, replies = tokens.touch_with(request, selectors.queue_reader)
    if viewer is None:
        raise NotAuthenticated()
    point = query_params(request, RecommendationQuerySerializer)
    city_id = cities.city_id(point.get("city"))
    ids = selectors.suggestions(replies, x=point.get("x"), y=point.get("y"), city_id=city_id)
    return json_bytes(selectors.cards_json(ids))


@fast_path("GET", "list", permission_classes=[IsAuthenticated])
@extend_schema(parameters=[RecommendationQuerySerializer], responses=RecommendationsSerializer)
@api_errors(404)  # a `city` of no city
def recommendations_view(request: HttpRequest) -> HttpResponse:
    """Guess you like: up to 10 shops for the caller, from the shops they saved, rated
    or liked a review of (shops that the same users also chose, weighted by how rare
    that is); for a caller with no history, or to fill the ten, the most popular shops
    of the city (`city`, the default city without it) near (x, y), or near its centre
    without them. Never a shop the caller rated or saved; each card's `saved` is
    therefore false."""
    return _recommendations(request)
