from django.urls import path

from .views import FollowListViewSet, FollowViewSet

urlpatterns = [
    path(
        "follows/<id:user_id>",
        FollowViewSet.as_view({"put": "update", "delete": "destroy", "get": "retrieve"}),
        name="follow",
    ),
    path("follows/common/<id:user_id>", FollowViewSet.as_view({"get": "common"}), name="common"),
    path(
        "users/<id:user_id>/followers",
        FollowListViewSet.as_view({"get": "followers"}),
        name="user-followers",
    ),
    path(
        "users/<id:user_id>/following",
        FollowListViewSet.as_view({"get": "following"}),
        name="user-following",
    ),
]
