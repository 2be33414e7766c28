from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.serializers import PublicUserSerializer
from dianping.api import fields
from shops.errors import ShopNotFound
from shops.models import Shop, ShopStaff

from .models import STARS_MAX, STARS_MIN, Blog, BlogComment, Report, ReviewReply, Visibility


class BlogWriteSerializer(serializers.Serializer):
    """What a client may set. Everything else (`user`, `liked`, `comments`) is ours."""

    title = fields.CharField(max_length=128)
    content = fields.CharField(max_length=5000, multiline=True)
    images = serializers.ListField(
        child=fields.ImageUrlField(max_length=500), max_length=9, required=False
    )
    shop_id = fields.ExistingIdField(
        queryset=Shop.objects.all(), missing=ShopNotFound, required=False, allow_null=True
    )
    rating = fields.IntegerField(
        min_value=STARS_MIN,
        max_value=STARS_MAX,
        required=False,
        allow_null=True,
        help_text="Stars (1-5) for the shop the note is about; needs `shop_id`.",
    )
    taste = fields.IntegerField(
        min_value=STARS_MIN,
        max_value=STARS_MAX,
        required=False,
        allow_null=True,
        help_text="Stars (1-5) for the food or goods; needs `rating`.",
    )
    environment = fields.IntegerField(
        min_value=STARS_MIN,
        max_value=STARS_MAX,
        required=False,
        allow_null=True,
        help_text="Stars (1-5) for the place; needs `rating`.",
    )
    service = fields.IntegerField(
        min_value=STARS_MIN,
        max_value=STARS_MAX,
        required=False,
        allow_null=True,
        help_text="Stars (1-5) for the service; needs `rating`.",
    )


class ReplySerializer(serializers.ModelSerializer):
    """The shop's official reply to a review, as readers see it: from the shop, not from
    the member who wrote it (their name is never shown)."""

    shop_name = serializers.CharField(source="shop.name", help_text="The shop that replied.")
    role = serializers.SerializerMethodField(
        help_text="Who speaks: `merchant`, the shop itself (shown as 商家回复)."
    )

    class Meta:
        model = ReviewReply
        fields = ["id", "shop_id", "shop_name", "role", "text", "created_at", "updated_at"]
        read_only_fields = fields

    def get_role(self, reply: ReviewReply) -> str:
        return "merchant"


class ReplyWriteSerializer(serializers.Serializer):
    text = fields.CharField(max_length=ReviewReply.TEXT_MAX, multiline=True)


class ReplyStateSerializer(serializers.Serializer):
    """Whether the caller may reply to the shop's reviews, and as what."""

    can_reply = serializers.BooleanField()
    role = serializers.ChoiceField(
        ShopStaff.Role.choices, allow_null=True, help_text="The caller's role at the shop."
    )


def visible_reply(blog: Blog) -> ReviewReply | None:
    """The review's reply as readers see it: none when hidden, or when the note moved
    away from the shop that wrote it (an admin's move; the author's edit deletes it)."""
    reply = getattr(blog, "reply", None)  # the reverse one-to-one: missing is None
    if reply is None or reply.status != Visibility.VISIBLE or reply.shop_id != blog.shop_id:
        return None
    return reply


class BlogSerializer(serializers.ModelSerializer):
    user = PublicUserSerializer(read_only=True)
    is_liked = serializers.SerializerMethodField()
    voted_helpful = serializers.SerializerMethodField(
        help_text="Whether the caller voted this review helpful (false for anonymous callers)."
    )
    saved = serializers.SerializerMethodField(
        help_text="Whether the caller saved the note to their favourites (false when not "
        "signed in); read live, as `is_liked`."
    )
    reply = serializers.SerializerMethodField()

    class Meta:
        model = Blog
        fields = [
            "id",
            "user",
            "shop_id",
            "rating",
            "taste",
            "environment",
            "service",
            "title",
            "images",
            "content",
            "liked",
            "comments",
            "helpful",
            "favourites",
            "is_liked",
            "voted_helpful",
            "saved",
            "reply",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields
        extra_kwargs = {"helpful": {"help_text": "How many readers voted this review helpful."}}

    def get_is_liked(self, blog: Blog) -> bool:
        return bool(self.context.get("liked", {}).get(blog.id, False))

    def get_voted_helpful(self, blog: Blog) -> bool:
        return bool(self.context.get("voted", {}).get(blog.id, False))

    def get_saved(self, blog: Blog) -> bool:
        return bool(self.context.get("saved", {}).get(blog.id, False))

    @extend_schema_field(ReplySerializer(allow_null=True))
    def get_reply(self, blog: Blog) -> dict | None:
        """The shop's reply to this review (null: none, or hidden by a moderator)."""
        reply = visible_reply(blog)
        return None if reply is None else ReplySerializer(reply).data


class BlogSummarySerializer(serializers.ModelSerializer):
    """What a user page caches of a blog; counts are read live (BlogListItemSerializer)."""

    excerpt = serializers.SerializerMethodField()

    class Meta:
        model = Blog
        fields = ["id", "shop_id", "rating", "title", "images", "excerpt", "created_at"]
        read_only_fields = fields

    def get_excerpt(self, blog: Blog) -> str:
        return blog.content[:120]


class BlogListItemSerializer(BlogSummarySerializer):
    """A user page item as the API answers it (documentation shape)."""

    liked = serializers.IntegerField()
    is_liked = serializers.BooleanField()
    saved = serializers.BooleanField(help_text="Whether the caller saved the note.")

    class Meta(BlogSummarySerializer.Meta):
        fields = [*BlogSummarySerializer.Meta.fields, "liked", "is_liked", "saved"]
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


class HelpfulStateSerializer(serializers.Serializer):
    voted_helpful = serializers.BooleanField()
    helpful = serializers.IntegerField(help_text="The review's helpful votes now.")


class CommentWriteSerializer(serializers.Serializer):
    content = fields.CharField(max_length=1000, multiline=True)
    parent_id = fields.IdField(required=False, allow_null=True)


FEED_TIME_MAX = 4_102_444_800_000  # ms: 2100-01-01, past any page a client was given
FEED_OFFSET_MAX = 10_000  # items of one millisecond already seen: far more than any inbox


class FeedQuerySerializer(serializers.Serializer):
    max_time = fields.IntegerField(
        min_value=0,
        max_value=FEED_TIME_MAX,
        required=False,
        help_text="ms: the previous page's `min_time`; omit at first.",
    )
    offset = fields.IntegerField(
        min_value=0,
        max_value=FEED_OFFSET_MAX,
        default=0,
        help_text="The previous page's `offset`.",
    )


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


class ReviewQuerySerializer(serializers.Serializer):
    sort = fields.ChoiceField(
        choices=["new", "liked", "helpful"],
        default="new",
        help_text="`new`: newest first; `liked`: most liked first; `helpful`: most voted "
        "helpful first (ties newest first).",
    )
    with_photos = fields.BooleanField(
        default=False, help_text="true: only the reviews with at least one picture."
    )
    stars = fields.IntegerField(
        min_value=STARS_MIN,
        max_value=STARS_MAX,
        required=False,
        help_text="Only the reviews that gave the shop this many stars (their `rating`).",
    )


class ReportWriteSerializer(serializers.Serializer):
    kind = fields.ChoiceField(
        Report.Kind.values, help_text="`blog` (a note), `comment`, or `reply` (a shop's reply)."
    )
    id = fields.IdField(help_text="The note's, the comment's or the reply's id.")
    reason = fields.ChoiceField(Report.Reason.values)
    text = fields.CharField(
        max_length=500, multiline=True, required=False, allow_blank=True, default=""
    )


class ReportSerializer(serializers.ModelSerializer):
    class Meta:
        model = Report
        fields = ["id", "kind", "target_id", "reason", "text", "status", "created_at"]
        read_only_fields = fields
