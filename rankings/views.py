"""`GET /api/rankings`: a week's list of a city by type or by district, read without DRF."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema

from accounts import tokens
from shops import cities
from toolkit.api.fastpath import fast_path, json_bytes
from toolkit.api.queries import query_params
from toolkit.api.schema import api_errors

from . import selectors
from .errors import OneListRequired
from .serializers import RankingQuerySerializer, RankingSerializer


@fast_path("GET", "list", permission_classes=[])
@extend_schema(parameters=[RankingQuerySerializer], responses=RankingSerializer)
@api_errors(400, 404)  # not exactly one list; a `city` of no city
def rankings_view(request: HttpRequest) -> HttpResponse:
    """This week's list of a city's shops of one type (`type_id`) or in one district
    (`area`): exactly one of them, else 400 `one_list_required`. Only shops with
    RANKING_MIN_REVIEWS reviewers are ranked, by the formula of docs/rankings.md,
    recomputed weekly; before the first computation the list is empty and `week` null.
    `lists` names the city's lists. Each card has `open_now` and the caller's `saved`."""
    params = query_params(request, RankingQuerySerializer)
    if ("type_id" in params) == ("area" in params):
        raise OneListRequired()
    city_id = cities.city_id(params.get("city"))
    field = selectors.list_field(type_id=params.get("type_id"), area=params.get("area"))
    read = selectors.Read(city_id, field)
    viewer, replies = tokens.touch_with(request, read.queue)
    return json_bytes(read.answer(replies, viewer["id"] if viewer else None))
