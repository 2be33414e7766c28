from django.urls import path

from .views import ShopVoucherViewSet, VoucherViewSet

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
    path("shops/<id:shop_id>/vouchers", ShopVoucherViewSet.as_view({"get": "list"})),
]
