from django.urls import path

from .views import AuthViewSet, MeInfoViewSet, UserViewSet, me_view

urlpatterns = [
    path("auth/code", AuthViewSet.as_view({"post": "send_code"}), name="auth-code"),
    path("auth/login", AuthViewSet.as_view({"post": "login"}), name="auth-login"),
    path("auth/logout", AuthViewSet.as_view({"post": "logout"}), name="auth-logout"),
    path("users/me", me_view, name="me"),
    path("users/me/info", MeInfoViewSet.as_view({"patch": "partial_update"}), name="me-info"),
    path("users/<id:user_id>", UserViewSet.as_view({"get": "retrieve"}), name="user-detail"),
    path("users/<id:user_id>/info", UserViewSet.as_view({"get": "info"}), name="user-info"),
]
