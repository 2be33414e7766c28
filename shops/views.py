"""Thin viewsets for cities, shop types and shops. Cached JSON is sent as stored, never
re-encoded."""

from __future__ import annotations

from typing import Any

import orjson
from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import tokens
from accounts.permissions import IsStaff
from toolkit.api import saved
from toolkit.api.fastpath import fast_path, json_bytes, json_response
from toolkit.api.pagination import PageNumberPagination
from toolkit.api.queries import query_params
from toolkit.api.schema import PAGE_PARAMETERS, api_errors, paged
from traffic.visitors import count_page

from . import cities, selectors, services
from .errors import ShopNotFound
from .models import Shop
from .serializers import (
    CitySerializer,
    NearbyShopSerializer,
    NearShopQuerySerializer,
    ShopCardSerializer,
    ShopListItemSerializer,
    ShopListQuerySerializer,
    ShopSerializer,
    ShopTypeSerializer,
    ShopWriteSerializer,
)


def _shop_detail(request: HttpRequest, shop_id: int) -> HttpResponse:
    """GET of one shop without DRF: one Redis round trip refreshes the caller's token (as
    the DRF authentication would), reads their `saved` marker, checks the Bloom filter
    and reads the cached JSON, which is sent as stored (`open_now` and `saved` spliced
    in); the view counts toward the shop's UV and PV."""
    token = tokens.bearer_token(request.META.get("HTTP_AUTHORIZATION", ""))

    def marker(pipe: Any, viewer_id: int | None) -> None:
        saved.queue_saved(pipe, viewer_id, saved.SHOP, [shop_id])

    view = selectors.shop_detail(shop_id=shop_id, token=token, reads=marker)
    if view.raw is None:
        raise ShopNotFound()
    user_id = view.viewer["id"] if view.viewer else None
    count_page(request, "shop", user_id, shop_id)
    marked, _ = saved.read_saved(view.replies, user_id, [shop_id])
    return json_bytes(selectors.with_saved(selectors.with_open_now(view.raw), marked[shop_id]))


class ShopPagination(PageNumberPagination):
    page_size = 5
    max_page_size = 10


class ShopTypeViewSet(viewsets.ViewSet):
    @extend_schema(responses=ShopTypeSerializer(many=True))
    def list(self, request: Request) -> HttpResponse:
        """All shop types, ordered by `sort` (served from Redis)."""
        return json_bytes(selectors.shop_types_json())


class CityViewSet(viewsets.ViewSet):
    @extend_schema(responses=CitySerializer(many=True))
    def list(self, request: Request) -> HttpResponse:
        """Every city, ordered by `sort` (served from Redis): a per-city read names one by its
        `code` in `city`; `default` marks the city of a read without it; `x` and `y` are the
        city's centre, where a list near a point may start."""
        return json_bytes(cities.cities_json())


class ShopViewSet(viewsets.ViewSet):
    def get_permissions(self):
        return [] if self.action in ("list", "retrieve", "nearby") else [IsStaff()]

    @extend_schema(request=ShopWriteSerializer, responses={201: ShopSerializer})
    def create(self, request: Request) -> Response:
        """Staff only: add a shop."""
        serializer = ShopWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        shop = services.shop_save(shop=Shop(**serializer.validated_data))
        return Response(ShopSerializer(shop).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ShopWriteSerializer, responses=ShopSerializer)
    def update(self, request: Request, shop_id: int) -> Response:
        """Staff only: replace a shop's editable fields."""
        return self._edit(request, shop_id, partial=False)

    @extend_schema(request=ShopWriteSerializer, responses=ShopSerializer)
    def partial_update(self, request: Request, shop_id: int) -> Response:
        """Staff only: change some of a shop's editable fields."""
        return self._edit(request, shop_id, partial=True)

    @extend_schema(responses={204: None})
    @api_errors(409)  # vouchers or orders point at the shop
    def destroy(self, request: Request, shop_id: int) -> Response:
        """Staff only: delete a shop."""
        services.shop_delete(shop_id=shop_id)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _edit(self, request: Request, shop_id: int, *, partial: bool) -> Response:
        shop = Shop.objects.filter(pk=shop_id).first()
        if shop is None:
            raise ShopNotFound()
        serializer = ShopWriteSerializer(shop, data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        for field, value in serializer.validated_data.items():
            setattr(shop, field, value)
        # Write only what the request changed, so concurrent edits of other fields survive.
        shop = services.shop_save(shop=shop, fields=list(serializer.validated_data))
        return Response(ShopSerializer(shop).data)


@fast_path(
    "GET",
    "retrieve",
    viewset=ShopViewSet,
    actions={"put": "update", "patch": "partial_update", "delete": "destroy"},
)
@extend_schema(responses=ShopCardSerializer)
def shop_detail_view(request: HttpRequest, shop_id: int) -> HttpResponse:
    """One shop, through the cache, with `open_now` computed at the time of the request
    and the caller's `saved` marker; each view counts toward the shop's UV and PV."""
    # The hottest read in the product: see `_shop_detail`.
    return _shop_detail(request, shop_id)


@fast_path("GET", "list", viewset=ShopViewSet, actions={"post": "create"})
@extend_schema(
    parameters=[ShopListQuerySerializer, *PAGE_PARAMETERS],
    responses=paged(ShopListItemSerializer),
)
@api_errors(404)  # a `city` of no city
def shop_list_view(request: HttpRequest) -> HttpResponse:
    """Shops of a city (`city`, the default city without it; of a type with `type_id`,
    of every type without), 5 a page, `page_size` up to 10; with x and y together, those
    within 5 km nearest first with `distance` in metres. `name` keeps those whose name
    contains it; `area`, `price_min`/`price_max`, `score_min` and `open_now` filter;
    `sort` orders by score or popularity instead.
    Every shop carries `open_now`, computed at the time of the request."""
    return _shop_list(request)


@fast_path("GET", "nearby", viewset=ShopViewSet)
@extend_schema(
    parameters=[NearShopQuerySerializer, *PAGE_PARAMETERS],
    responses=paged(NearbyShopSerializer),
)
def shop_nearby_view(request: HttpRequest, shop_id: int) -> HttpResponse:
    """Other shops of the shop's type and city within `radius` metres of it (1,000
    unless given, at most 5,000), nearest first, each with its `distance` from the shop."""
    return _shop_nearby(request, shop_id)


def _shop_list(request: HttpRequest) -> HttpResponse:
    """Near a point, the GEO searches share the token's round trip and the shops come
    from the cache (the near cache's copies: no round trip); by type or name, a page of
    ids from the database, the shops from the cache, the reader's `saved` markers on the
    token's round trip (decision 370)."""
    params = query_params(request, ShopListQuerySerializer)
    paginator = ShopPagination()
    paginator.begin(request)
    type_id = params.get("type_id")
    filters = {name: params[name] for name in selectors.SHOP_FILTERS if name in params}
    if not filters.get("open_now"):
        filters.pop("open_now", None)  # open_now=false filters nothing
    sort = params.get("sort")
    city_id = cities.city_id(params.get("city"))
    if "x" in params:
        type_ids = selectors.nearby_type_ids(type_id)

        def search(pipe: Any, _viewer_id: int | None) -> None:
            selectors.queue_nearby(
                pipe, city_id=city_id, type_ids=type_ids, x=params["x"], y=params["y"]
            )

        viewer, replies = tokens.touch_with(request, search)
        end = paginator.offset + paginator.size
        if params.get("name") or filters or sort is not None:
            _, hits = selectors.nearby_hits(replies)
            hits = selectors.hits_matching(hits, name=params.get("name"), sort=sort, **filters)
            paginator.count = len(hits)
        else:
            paginator.count, hits = selectors.nearby_hits(replies, first=end)
        page = selectors.with_distances(
            hits[paginator.offset : end], type_id=type_id, city_id=city_id
        )
        # The page's shops come from the GEO search's reply: their markers cannot share
        # its round trip, and take one of their own (signed-in readers only).
        viewer_id = viewer["id"] if viewer else None
        saved.mark(page, saved.saved_states(viewer_id, saved.SHOP, [s["id"] for s in page]))
        return json_response(paginator.page_body(page))
    shops = selectors.shop_list(
        city_id=city_id, type_id=type_id, name=params.get("name"), sort=sort, **filters
    )
    if filters.get("open_now"):  # which are open is told in Python: a bounded scan
        ids = paginator.paginate_queryset(selectors.open_ids(shops), request)
    else:
        ids = list(paginator.paginate_queryset(shops.values_list("id", flat=True), request))
    # The page is known before any round trip: the reader's markers share the token's.
    viewer, replies = tokens.touch_with(
        request, lambda pipe, viewer_id: saved.queue_saved(pipe, viewer_id, saved.SHOP, ids)
    )
    marked, _ = saved.read_saved(replies, viewer["id"] if viewer else None, ids)
    documents = selectors.shop_documents(ids)
    page = [documents[i] for i in ids if i in documents]
    saved.mark(page, marked)
    return json_response(paginator.page_body(page))


def _shop_nearby(request: HttpRequest, shop_id: int) -> HttpResponse:
    """The shop from its cache (with the token's refresh), one GEOSEARCH, the neighbours
    from the cache, and a signed-in reader's `saved` markers."""
    radius = query_params(request, NearShopQuerySerializer)["radius"]
    paginator = ShopPagination()
    paginator.begin(request)
    token = tokens.bearer_token(request.META.get("HTTP_AUTHORIZATION", ""))
    view = selectors.shop_detail(shop_id=shop_id, token=token)
    if view.raw is None:
        raise ShopNotFound()
    shop = orjson.loads(view.raw)
    end = paginator.offset + paginator.size
    paginator.count, hits = selectors.shops_near_shop(shop=shop, radius_m=radius, first=end)
    page = selectors.with_distances(
        hits[paginator.offset : end],
        type_id=shop["type_id"],
        city_id=selectors.document_city_id(shop),
    )
    viewer_id = view.viewer["id"] if view.viewer else None  # markers: as the list's near a point
    saved.mark(page, saved.saved_states(viewer_id, saved.SHOP, [s["id"] for s in page]))
    return json_response(paginator.page_body(page))
