from django.urls import path

from .views import BlogViewSet, FeedViewSet, UserBlogsViewSet

blog_item = BlogViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"})

urlpatterns = [
    path("blogs", BlogViewSet.as_view({"post": "create"}), name="blogs"),
    path("blogs/hot", BlogViewSet.as_view({"get": "hot"}), name="blogs-hot"),
    path("blogs/mine", UserBlogsViewSet.as_view({"get": "mine"}), name="blogs-mine"),
    path("blogs/<id:blog_id>", blog_item, name="blog-detail"),
    path(
        "blogs/<id:blog_id>/like",
        BlogViewSet.as_view({"post": "like", "delete": "like"}),
        name="blog-like",
    ),
    path("blogs/<id:blog_id>/likes", BlogViewSet.as_view({"get": "likes"}), name="blog-likes"),
    path(
        "blogs/<id:blog_id>/comments",
        BlogViewSet.as_view({"get": "comments", "post": "comment"}),
        name="blog-comments",
    ),
    path("users/<id:user_id>/blogs", UserBlogsViewSet.as_view({"get": "list"}), name="user-blogs"),
    path("feed", FeedViewSet.as_view({"get": "list"}), name="feed"),
]
