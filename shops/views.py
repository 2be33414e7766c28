"""Thin viewsets for shop types and shops. Cached JSON is sent as stored, never re-encoded."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsStaff
from dianping.api.pagination import PageNumberPagination
from dianping.api.visitors import visitor_id
from dianping.errors import NotFound
from dianping.redis import visits

from . import selectors, services
from .models import Shop
from .serializers import (
    NearbyShopSerializer,
    ShopListQuerySerializer,
    ShopSerializer,
    ShopTypeSerializer,
    ShopWriteSerializer,
)


def _json(raw: bytes) -> HttpResponse:
    return HttpResponse(raw, content_type="application/json")


class ShopPagination(PageNumberPagination):
    page_size = 5
    max_page_size = 10


class ShopTypeViewSet(viewsets.ViewSet):
    @extend_schema(responses=ShopTypeSerializer(many=True))
    def list(self, request: Request) -> HttpResponse:
        """All shop types, ordered by `sort` (served from Redis)."""
        return _json(selectors.shop_types_json())


class ShopViewSet(viewsets.ViewSet):
    def get_permissions(self):  # type: ignore[no-untyped-def]
        return [] if self.action in ("list", "retrieve") else [IsStaff()]

    @extend_schema(parameters=[ShopListQuerySerializer], responses=NearbyShopSerializer(many=True))
    def list(self, request: Request) -> Response:
        """Shops of a type (5 a page, `page_size` up to 10); with x and y, those within
        5 km nearest first with `distance` in metres; `name` searches by name."""
        query = ShopListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
        paginator = ShopPagination()
        if "x" in params:
            hits = selectors.shops_nearby(type_id=params["type_id"], x=params["x"], y=params["y"])
            page = selectors.shops_by_ids_in_order(paginator.paginate_queryset(hits, request))
            data = NearbyShopSerializer(page, many=True).data
        else:
            shops = selectors.shop_list(type_id=params.get("type_id"), name=params.get("name"))
            data = ShopSerializer(paginator.paginate_queryset(shops, request), many=True).data
        return paginator.get_paginated_response(data)

    @extend_schema(responses=ShopSerializer)
    def retrieve(self, request: Request, shop_id: int) -> HttpResponse:
        """One shop, through the cache; each view counts toward the shop's UV and PV."""
        raw = selectors.shop_detail_json(shop_id=shop_id)
        if raw is None:
            raise NotFound("No such shop.", code="shop_not_found")
        visits.record(f"shop:{shop_id}", visitor_id(request))
        return _json(raw)

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
    def destroy(self, request: Request, shop_id: int) -> Response:
        """Staff only: delete a shop."""
        services.shop_delete(shop_id=shop_id)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _edit(self, request: Request, shop_id: int, *, partial: bool) -> Response:
        shop = Shop.objects.filter(pk=shop_id).first()
        if shop is None:
            raise NotFound("No such shop.", code="shop_not_found")
        serializer = ShopWriteSerializer(shop, data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        for field, value in serializer.validated_data.items():
            setattr(shop, field, value)
        return Response(ShopSerializer(services.shop_save(shop=shop)).data)
