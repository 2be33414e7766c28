from django.urls import path

from .views import ShopTypeViewSet, ShopViewSet, shop_detail_view

urlpatterns = [
    path("shop-types", ShopTypeViewSet.as_view({"get": "list"}), name="shop-types"),
    path("shops", ShopViewSet.as_view({"get": "list", "post": "create"}), name="shops"),
    path("shops/<id:shop_id>", shop_detail_view, name="shop-detail"),
    path("shops/<id:shop_id>/nearby", ShopViewSet.as_view({"get": "nearby"}), name="shop-nearby"),
]
