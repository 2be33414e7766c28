from __future__ import annotations

from django.utils.translation import gettext
from rest_framework import serializers

from accounts.serializers import PublicUserSerializer
from shops.models import Shop

from .models import Blog, BlogComment


class BlogWriteSerializer(serializers.Serializer):
    """What a client may set. Everything else (`user`, `liked`, `comments`) is ours."""

    title = serializers.CharField(max_length=128)
    content = serializers.CharField(max_length=5000)
    images = serializers.ListField(
        child=serializers.URLField(max_length=500), max_length=9, required=False
    )
    shop_id = serializers.IntegerField(required=False, allow_null=True, min_value=1)

    def validate_shop_id(self, value: int | None) -> int | None:
        if value is not None and not Shop.objects.filter(pk=value).exists():
            raise serializers.ValidationError(gettext("No such shop."))
        return value


class BlogSerializer(serializers.ModelSerializer):
    user = PublicUserSerializer(read_only=True)
    is_liked = serializers.SerializerMethodField()

    class Meta:
        model = Blog
        fields = [
            "id", "user", "shop_id", "title", "images", "content", "liked", "comments",
            "is_liked", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_is_liked(self, blog: Blog) -> bool:
        return bool(self.context.get("liked", {}).get(blog.id, False))


class BlogSummarySerializer(serializers.ModelSerializer):
    """What a user page caches of a blog; counts are read live (BlogListItemSerializer)."""

    excerpt = serializers.SerializerMethodField()

    class Meta:
        model = Blog
        fields = ["id", "shop_id", "title", "images", "excerpt", "created_at"]
        read_only_fields = fields

    def get_excerpt(self, blog: Blog) -> str:
        return blog.content[:120]


class BlogListItemSerializer(BlogSummarySerializer):
    """A user page item as the API answers it (documentation shape)."""

    liked = serializers.IntegerField()
    is_liked = serializers.BooleanField()

    class Meta(BlogSummarySerializer.Meta):
        fields = [*BlogSummarySerializer.Meta.fields, "liked", "is_liked"]
        read_only_fields = fields


class UserBlogsPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    user = PublicUserSerializer()
    results = BlogListItemSerializer(many=True)


class LikeStateSerializer(serializers.Serializer):
    is_liked = serializers.BooleanField()
    liked = serializers.IntegerField()


class CommentWriteSerializer(serializers.Serializer):
    content = serializers.CharField(max_length=1000)
    parent_id = serializers.IntegerField(required=False, allow_null=True, min_value=1)


class CommentSerializer(serializers.ModelSerializer):
    user = PublicUserSerializer(read_only=True)

    class Meta:
        model = BlogComment
        fields = ["id", "blog_id", "user", "parent_id", "content", "liked", "created_at"]
        read_only_fields = fields


class FeedPageSerializer(serializers.Serializer):
    results = BlogSerializer(many=True)
    min_time = serializers.IntegerField(help_text="Pass as `max_time` for the next page.")
    offset = serializers.IntegerField(help_text="Pass as `offset` for the next page.")
