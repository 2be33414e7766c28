from django.urls import path

from .views import FollowViewSet, followers_view, following_view

urlpatterns = [
    path(
        "follows/<id:user_id>",
        FollowViewSet.as_view({"put": "update", "delete": "destroy", "get": "retrieve"}),
        name="follow",
    ),
    path("follows/common/<id:user_id>", FollowViewSet.as_view({"get": "common"}), name="common"),
    path("users/<id:user_id>/followers", followers_view, name="user-followers"),
    path("users/<id:user_id>/following", following_view, name="user-following"),
]
