from django.urls import path

from .views import FavouriteViewSet, favourites_view

urlpatterns = [
    path("favourites", favourites_view, name="favourites"),
    path(
        "favourites/<str:kind>/<id:object_id>",
        FavouriteViewSet.as_view({"put": "update", "delete": "destroy"}),
        name="favourite",
    ),
]
