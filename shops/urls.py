from django.urls import path

from .views import ShopTypeViewSet, ShopViewSet, shop_detail_view

urlpatterns = [
    path("shop-types", ShopTypeViewSet.as_view({"get": "list"}), name="shop-types"),
    path("shops", ShopViewSet.as_view({"get": "list", "post": "create"}), name="shops"),
    # Any segment reaches the view, so a malformed id is a 400 (not a 404).
    path("shops/<str:raw_id>", shop_detail_view, name="shop-detail"),
]
