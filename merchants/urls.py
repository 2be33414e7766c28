from django.urls import path

from .views import ClaimViewSet, MerchantShopViewSet, StaffViewSet

urlpatterns = [
    path(
        "merchant/claims",
        ClaimViewSet.as_view({"get": "list", "post": "create"}),
        name="merchant-claims",
    ),
    path("merchant/shops", MerchantShopViewSet.as_view({"get": "list"}), name="merchant-shops"),
    path(
        "merchant/shops/<id:shop_id>",
        MerchantShopViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="merchant-shop",
    ),
    path(
        "merchant/shops/<id:shop_id>/staff",
        StaffViewSet.as_view({"get": "list", "post": "create"}),
        name="merchant-staff",
    ),
    path(
        "merchant/shops/<id:shop_id>/staff/<id:user_id>",
        StaffViewSet.as_view({"delete": "destroy"}),
        name="merchant-staff-member",
    ),
]
