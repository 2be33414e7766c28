from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from accounts.serializers import PublicUserSerializer
from toolkit.api import fields

from .models import Kind, Notification

EXCERPT = 100  # characters of a comment shown in the inbox


class BlogLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()


class CommentLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    content = serializers.SerializerMethodField(help_text=f"Its first {EXCERPT} characters.")

    def get_content(self, comment) -> str:
        return comment.content[:EXCERPT]


class VoucherLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    begin_time = serializers.DateTimeField(allow_null=True)


class ShopLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class NotificationSerializer(serializers.ModelSerializer):
    kind = serializers.ChoiceField(Kind.choices)
    actor = PublicUserSerializer(allow_null=True, help_text="Who did it (null for the system).")
    blog = BlogLinkSerializer(allow_null=True, help_text="The note it is about.")
    comment = CommentLinkSerializer(
        allow_null=True, help_text="The new comment or reply (the newest of `count`)."
    )
    voucher = VoucherLinkSerializer(allow_null=True, help_text="The coupon's or sale's voucher.")
    order_id = serializers.CharField(allow_null=True, help_text="The voucher order (a string).")
    shop = ShopLinkSerializer(
        allow_null=True,
        help_text="The shop: the one that replied to your review (`review_replied`), or the "
        "shop a merchant notification is about (your shop that was reviewed, claimed, "
        "changed, whose offer was decided or whose sale started or sold out).",
    )
    count = serializers.IntegerField(
        min_value=1,
        help_text="How many comments it stands for: a note's comments fold into one unread "
        "item, which shows the newest (`actor`, `comment`) and moves to the top; 1 for every "
        "other kind.",
    )
    reason = serializers.CharField(
        help_text="Why an operator turned it down, in their words: for `claim_rejected`, "
        "`offer_returned` and `shop_change_rejected`; empty for every other kind."
    )
    read = serializers.SerializerMethodField()

    class Meta:
        model = Notification
        fields = [
            "id",
            "kind",
            "actor",
            "blog",
            "comment",
            "voucher",
            "order_id",
            "shop",
            "count",
            "reason",
            "read",
            "created_at",
        ]
        read_only_fields = fields

    def get_read(self, notification: Notification) -> bool:
        return notification.read_at is not None


class UnreadSerializer(serializers.Serializer):
    unread = serializers.IntegerField()


class StreamTicketSerializer(serializers.Serializer):
    ticket = serializers.CharField(
        help_text="Opens one notification stream: pass it as `ticket`; spent by that stream."
    )
    url = serializers.CharField(
        help_text="Where to open the stream: a path on this origin, `:<port>/<path>` for "
        "this host on another port, or a full URL."
    )
    expires_in = serializers.IntegerField(help_text="Seconds the ticket lives unspent.")


class StreamQuerySerializer(serializers.Serializer):
    ticket = fields.CharField(
        required=False,
        max_length=100,
        help_text="A ticket from POST /api/notifications/stream-ticket (EventSource cannot "
        "send the Authorization header).",
    )
    last_event_id = fields.IdTextField(
        required=False,
        help_text="Resume after this event id (the `Last-Event-ID` header does the same, "
        "and wins): for a client that opens a new stream itself.",
    )


class MarkReadSerializer(serializers.Serializer):
    """One of `ids` (the caller's; others' are ignored) and `"all": true`."""

    ids = serializers.ListField(child=fields.IdField(), max_length=200, required=False)
    all = fields.BooleanField(required=False, help_text="true: mark every notification read.")
    # What validate() admits, in the schema's words (decision 284): `ids`, with `all` left
    # out or false; or `"all": true` without `ids`. ("not true" rather than an enum: the
    # schema generator would turn an enum into a shared component, one for both branches.)
    schema_one_of = [
        {"required": ["ids"], "properties": {"all": {"not": {"enum": [True]}}}},
        {
            "required": ["all"],
            "properties": {"all": {"not": {"enum": [False]}}},
            "not": {"required": ["ids"]},
        },
    ]

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if ("ids" in data) == bool(data.get("all")):
            message = gettext('Send either "ids" or "all": true.')
            raise serializers.ValidationError({"ids": [message]})
        return data


class WatchingSerializer(serializers.Serializer):
    watching = serializers.BooleanField()


class WatchedSerializer(serializers.Serializer):
    voucher_ids = serializers.ListField(
        child=serializers.IntegerField(), help_text="Upcoming sales watched, soonest first."
    )
