from django.urls import path

from .views import ClaimViewSet, DashboardViewSet, MerchantShopViewSet, StaffViewSet

urlpatterns = [
    path(
        "merchant/claims",
        ClaimViewSet.as_view({"get": "list", "post": "create"}),
        name="merchant-claims",
    ),
    path("merchant/shops", MerchantShopViewSet.as_view({"get": "list"}), name="merchant-shops"),
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
]
