from django.urls import path

from .views import (
    BlogViewSet,
    ReplyViewSet,
    ReportViewSet,
    blog_detail_view,
    feed_view,
    hot_view,
    my_blogs_view,
    shop_reviews_view,
    user_blogs_view,
)

urlpatterns = [
    path("blogs", BlogViewSet.as_view({"post": "create"}), name="blogs"),
    path("blogs/hot", hot_view, name="blogs-hot"),
    path("blogs/mine", my_blogs_view, name="blogs-mine"),
    path("blogs/<id:blog_id>", blog_detail_view, name="blog-detail"),
    path(
        "blogs/<id:blog_id>/like",
        BlogViewSet.as_view({"post": "like", "delete": "like"}),
        name="blog-like",
    ),
    path(
        "blogs/<id:blog_id>/helpful",
        BlogViewSet.as_view({"put": "helpful", "delete": "helpful"}),
        name="blog-helpful",
    ),
    path("blogs/<id:blog_id>/likes", BlogViewSet.as_view({"get": "likes"}), name="blog-likes"),
    path(
        "blogs/<id:blog_id>/comments",
        BlogViewSet.as_view({"get": "comments", "post": "comment"}),
        name="blog-comments",
    ),
    path(
        "blogs/<id:blog_id>/reply",
        ReplyViewSet.as_view({"put": "update", "delete": "destroy"}),
        name="blog-reply",
    ),
    path("shops/<id:shop_id>/reviews", shop_reviews_view, name="shop-reviews"),
    path(
        "shops/<id:shop_id>/reviews/reply-state",
        ReplyViewSet.as_view({"get": "state"}),
        name="shop-reply-state",
    ),
    path(
        "blogs/<id:blog_id>/comments/<id:comment_id>",
        BlogViewSet.as_view({"delete": "delete_comment"}),
        name="blog-comment",
    ),
    path("reports", ReportViewSet.as_view({"post": "create"}), name="reports"),
    path("users/<id:user_id>/blogs", user_blogs_view, name="user-blogs"),
    path("feed", feed_view, name="feed"),
]
