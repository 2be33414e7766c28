"""Thin viewsets for vouchers: staff writes, shop voucher lists, the activity list."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsStaff

from . import selectors, services
from .serializers import VoucherListItemSerializer, VoucherSerializer, VoucherWriteSerializer

TABS = ("seizing", "upcoming")


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
