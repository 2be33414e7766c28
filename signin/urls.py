from django.urls import path

from .views import SignViewSet, StatsViewSet

urlpatterns = [
    path("sign", SignViewSet.as_view({"post": "create"}), name="sign"),
    path("sign/streak", SignViewSet.as_view({"get": "streak"}), name="sign-streak"),
    path("sign/month", SignViewSet.as_view({"get": "month"}), name="sign-month"),
    path("stats/uv", StatsViewSet.as_view({"get": "uv"}), name="stats-uv"),
    path("stats/sign", StatsViewSet.as_view({"get": "sign"}), name="stats-sign"),
]
