from django.urls import path

from .views import CityViewSet, ShopTypeViewSet, shop_detail_view, shop_list_view, shop_nearby_view

urlpatterns = [
    path("cities", CityViewSet.as_view({"get": "list"}), name="cities"),
    path("shop-types", ShopTypeViewSet.as_view({"get": "list"}), name="shop-types"),
    path("shops", shop_list_view, name="shops"),
    path("shops/<id:shop_id>", shop_detail_view, name="shop-detail"),
    path("shops/<id:shop_id>/nearby", shop_nearby_view, name="shop-nearby"),
]
