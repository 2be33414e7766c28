from django.urls import path

from .views import OrderViewSet, ShopVoucherViewSet, VoucherViewSet, seckill_view

urlpatterns = [
    path("vouchers", VoucherViewSet.as_view({"post": "create"}), name="vouchers"),
    path(
        "vouchers/activities",
        VoucherViewSet.as_view({"get": "activities"}),
        name="voucher-activities",
    ),
    path(
        "vouchers/<id:voucher_id>",
        VoucherViewSet.as_view({"patch": "partial_update"}),
        name="voucher-detail",
    ),
    path(
        "vouchers/<id:voucher_id>/seckill",
        seckill_view,
        name="voucher-seckill",
    ),
    path("voucher-orders", OrderViewSet.as_view({"get": "list"}), name="orders"),
    path("voucher-orders/<id:order_id>", OrderViewSet.as_view({"get": "retrieve"}), name="order"),
    path(
        "voucher-orders/<id:order_id>/pay",
        OrderViewSet.as_view({"post": "pay"}),
        name="order-pay",
    ),
    path("shops/<id:shop_id>/vouchers", ShopVoucherViewSet.as_view({"get": "list"})),
]
