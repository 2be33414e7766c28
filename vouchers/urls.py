from django.urls import path

from .views import (
    CouponViewSet,
    OrderViewSet,
    RedemptionViewSet,
    ShopOrderViewSet,
    VoucherViewSet,
    activities_view,
    my_vouchers_view,
    seckill_view,
    shop_vouchers_view,
)

# The flash sale's peak is the hottest traffic the site sees: dianping/urls.py lists
# this route at its top level (no include to descend into), right after the baselines.
sale_urlpatterns = [
    path("api/vouchers/<id:voucher_id>/seckill", seckill_view, name="voucher-seckill"),
]

urlpatterns = [
    path(
        "vouchers",
        VoucherViewSet.as_view({"get": "list", "post": "create"}),
        name="vouchers",
    ),
    path("vouchers/activities", activities_view, name="voucher-activities"),
    path(
        "vouchers/<id:voucher_id>",
        VoucherViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
        name="voucher-detail",
    ),
    path(
        "vouchers/<id:voucher_id>/claim",
        VoucherViewSet.as_view({"post": "claim"}),
        name="voucher-claim",
    ),
    path(
        "vouchers/<id:voucher_id>/challenge",
        VoucherViewSet.as_view({"get": "challenge"}),
        name="voucher-challenge",
    ),
    path(
        "vouchers/<id:voucher_id>/void",
        VoucherViewSet.as_view({"post": "void"}),
        name="voucher-void",
    ),
    path("voucher-orders", my_vouchers_view, name="orders"),
    path("voucher-orders/<id:order_id>", OrderViewSet.as_view({"get": "retrieve"}), name="order"),
    path(
        "voucher-orders/<id:order_id>/pay", OrderViewSet.as_view({"post": "pay"}), name="order-pay"
    ),
    path(
        "voucher-orders/<id:order_id>/cancel",
        OrderViewSet.as_view({"post": "cancel"}),
        name="order-cancel",
    ),
    path(
        "voucher-orders/<id:order_id>/refund",
        OrderViewSet.as_view({"post": "refund"}),
        name="order-refund",
    ),
    path("coupons/usable", CouponViewSet.as_view({"get": "usable"}), name="coupons-usable"),
    path(
        "shop-orders",
        ShopOrderViewSet.as_view({"get": "list", "post": "create"}),
        name="shop-orders",
    ),
    path(
        "shop-orders/<id:shop_order_id>/refund",
        ShopOrderViewSet.as_view({"post": "refund"}),
        name="shop-order-refund",
    ),
    path("redemptions", RedemptionViewSet.as_view({"post": "create"}), name="redemptions"),
    path("shops/<id:shop_id>/vouchers", shop_vouchers_view, name="shop-vouchers"),
    path(
        "shops/<id:shop_id>/redemptions",
        RedemptionViewSet.as_view({"get": "shop_day"}),
        name="shop-redemptions",
    ),
]
