"""Thin viewsets for vouchers: staff writes, shop voucher lists, the activity list."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import tokens
from accounts.permissions import IsStaff
from dianping.api.exceptions import domain_error_json
from dianping.errors import DomainError, NotAuthenticated
from dianping.validation import parse_id

from . import order_selectors, order_services, seckill, selectors, services
from .serializers import (
    MyVoucherSerializer,
    MyVouchersPageSerializer,
    OrderSerializer,
    SeckillResultSerializer,
    VoucherListItemSerializer,
    VoucherSerializer,
    VoucherWriteSerializer,
)

TABS = ("seizing", "upcoming")
MY_TABS = ("unused", "used", "expired", "unpaid")


class VoucherViewSet(viewsets.ViewSet):
    def get_permissions(self):  # type: ignore[no-untyped-def]
        return [IsStaff()] if self.action in ("create", "partial_update") else []

    @extend_schema(request=VoucherWriteSerializer, responses={201: VoucherSerializer})
    def create(self, request: Request) -> Response:
        """Staff only: add a voucher (money in fen; flash sales need stock and a window)."""
        serializer = VoucherWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        voucher = services.voucher_create(data=serializer.validated_data)
        return Response(VoucherSerializer(voucher).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=VoucherWriteSerializer, responses=VoucherSerializer)
    def partial_update(self, request: Request, voucher_id: int) -> Response:
        """Staff only: change a voucher; stock is frozen once its sale has started (409)."""
        voucher = selectors.voucher_get(voucher_id=voucher_id)
        serializer = VoucherWriteSerializer(voucher, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        voucher = services.voucher_update(voucher_id=voucher_id, data=serializer.validated_data)
        return Response(VoucherSerializer(voucher).data)

    @extend_schema(
        parameters=[OpenApiParameter("tab", enum=TABS, required=True)],
        responses=VoucherListItemSerializer(many=True),
    )
    def activities(self, request: Request) -> Response:
        """Flash sales on now (`seizing`) or starting within 30 days (`upcoming`)."""
        tab = request.query_params.get("tab")
        if tab not in TABS:
            raise ValidationError({"tab": [f"Choose one of: {', '.join(TABS)}."]})
        return Response(selectors.activities(tab=tab))


class ShopVoucherViewSet(viewsets.ViewSet):
    @extend_schema(responses=VoucherListItemSerializer(many=True))
    def list(self, request: Request, shop_id: int) -> Response:
        """A shop's vouchers, with live remaining stock for flash-sale ones."""
        return Response(selectors.shop_vouchers(shop_id=shop_id))


class SeckillViewSet(viewsets.ViewSet):
    """Documents the operation; requests take `seckill_view` below, the fast path."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SeckillResultSerializer})
    def create(self, request: Request, voucher_id: int) -> Response:
        """Grab one unit of a flash sale: 200 with the order id, or 409 not_started /
        ended / sold_out / duplicate_order; 429 (Retry-After) when the per-user funnel
        (5 at once, then 2 a second) is full."""
        order_id = seckill.voucher_seckill(user_id=request.user.id, voucher_id=voucher_id)
        return Response({"order_id": str(order_id)})


class OrderViewSet(viewsets.ViewSet):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("status", enum=MY_TABS, required=True),
            OpenApiParameter("last_id", str, required=False),
        ],
        responses=MyVouchersPageSerializer,
    )
    def list(self, request: Request) -> Response:
        """My vouchers: `unused`, `used`, `expired`, or `unpaid` (grabbed, awaiting
        payment), 10 a page, newest first, scrolled by passing the previous page's
        `last_id`."""
        tab = request.query_params.get("status")
        errors = {}
        if tab not in MY_TABS:
            errors["status"] = [f"Choose one of: {', '.join(MY_TABS)}."]
        raw_last = request.query_params.get("last_id")
        last_id = None
        if raw_last:
            try:
                last_id = parse_id(raw_last)
            except ValueError:
                errors["last_id"] = ["An order id is required."]
        if errors:
            raise ValidationError(errors)
        page, next_last_id = order_selectors.my_vouchers(
            user_id=request.user.id, tab=tab, last_id=last_id
        )
        return Response(
            {
                "results": MyVoucherSerializer(page, many=True).data,
                "last_id": None if next_last_id is None else str(next_last_id),
            }
        )

    @extend_schema(responses=OrderSerializer)
    def retrieve(self, request: Request, order_id: int) -> Response:
        """The caller's order; `pending` while it is accepted but not yet persisted.
        Other users' orders are 404."""
        order = order_selectors.order_get(order_id=order_id, user_id=request.user.id)
        return Response(OrderSerializer(order).data)

    @extend_schema(request=None, responses=OrderSerializer)
    def pay(self, request: Request, order_id: int) -> Response:
        """Simulated payment of the caller's unpaid order (409 while it is still pending)."""
        order = order_services.order_pay(order_id=order_id, user_id=request.user.id)
        return Response(OrderSerializer(order).data)


_seckill_viewset = SeckillViewSet.as_view({"post": "create"})


@csrf_exempt  # bearer-token API, no cookies: same as every DRF view
def seckill_view(request: HttpRequest, voucher_id: int) -> JsonResponse:
    """`POST /api/vouchers/{id}/seckill` without DRF's per-request machinery: one EVALSHA
    refreshes the token (as the DRF authentication does) and decides the sale, funnel
    limit included. Same answers as the viewset it stands in for."""
    if request.method != "POST":
        body = {"detail": f'Method "{request.method}" not allowed.', "code": "method_not_allowed"}
        return JsonResponse(body, status=405, headers={"Allow": "POST"})
    token = tokens.bearer_token(request.META.get("HTTP_AUTHORIZATION", ""))
    try:
        if token is None:
            raise NotAuthenticated()
        order_id = seckill.voucher_seckill_by_token(token=token, voucher_id=voucher_id)
    except DomainError as exc:
        return domain_error_json(exc)
    return JsonResponse({"order_id": str(order_id)})


# Let the OpenAPI generator see the viewset behind the fast path.
seckill_view.cls = _seckill_viewset.cls  # type: ignore[attr-defined]
seckill_view.initkwargs = _seckill_viewset.initkwargs  # type: ignore[attr-defined]
seckill_view.actions = _seckill_viewset.actions  # type: ignore[attr-defined]
