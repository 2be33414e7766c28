from django.urls import path

from .views import FollowViewSet

urlpatterns = [
    path(
        "follows/<id:user_id>",
        FollowViewSet.as_view({"put": "update", "delete": "destroy", "get": "retrieve"}),
        name="follow",
    ),
    path("follows/common/<id:user_id>", FollowViewSet.as_view({"get": "common"}), name="common"),
]
