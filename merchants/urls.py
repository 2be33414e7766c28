from django.urls import path

from .views import (
    ClaimViewSet,
    DashboardViewSet,
    MerchantShopViewSet,
    OfferViewSet,
    StaffViewSet,
)

urlpatterns = [
    path(
        "merchant/claims",
        ClaimViewSet.as_view({"get": "list", "post": "create"}),
        name="merchant-claims",
    ),
    path(
        "shops/<id:shop_id>/claim-state",
        ClaimViewSet.as_view({"get": "state"}),
        name="shop-claim-state",
    ),
    path("merchant/shops", MerchantShopViewSet.as_view({"get": "list"}), name="merchant-shops"),
    path(
        "merchant/shops/<id:shop_id>",
        MerchantShopViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="merchant-shop",
    ),
    path(
        "merchant/shops/<id:shop_id>/dashboard",
        DashboardViewSet.as_view({"get": "retrieve"}),
        name="merchant-dashboard",
    ),
    path(
        "merchant/shops/<id:shop_id>/dashboard.csv",
        DashboardViewSet.as_view({"get": "csv"}),
        name="merchant-dashboard-csv",
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
    path(
        "merchant/shops/<id:shop_id>/offers",
        OfferViewSet.as_view({"get": "list", "post": "create"}),
        name="merchant-offers",
    ),
    path(
        "merchant/shops/<id:shop_id>/offers/<id:offer_id>",
        OfferViewSet.as_view({"patch": "partial_update"}),
        name="merchant-offer",
    ),
    path(
        "merchant/shops/<id:shop_id>/offers/<id:offer_id>/submit",
        OfferViewSet.as_view({"post": "submit"}),
        name="merchant-offer-submit",
    ),
    path(
        "merchant/shops/<id:shop_id>/offers/<id:offer_id>/stop",
        OfferViewSet.as_view({"post": "stop"}),
        name="merchant-offer-stop",
    ),
]
