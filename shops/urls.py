from django.urls import path

from .views import ShopTypeViewSet, ShopViewSet

detail = {"get": "retrieve", "put": "update", "patch": "partial_update", "delete": "destroy"}

urlpatterns = [
    path("shop-types", ShopTypeViewSet.as_view({"get": "list"}), name="shop-types"),
    path("shops", ShopViewSet.as_view({"get": "list", "post": "create"}), name="shops"),
    path("shops/<id:shop_id>", ShopViewSet.as_view(detail), name="shop-detail"),
]
