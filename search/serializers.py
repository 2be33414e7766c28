"""Search request validation and response shapes (the kinds' items come from their
sources: this app imports no content app)."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from toolkit.api import fields

from .documents import kinds, source

KINDS = ("shops", "notes", "users")  # the client's tabs, shops first (the default)
QUERY_MAX = 64


class SearchQuerySerializer(serializers.Serializer):
    q = fields.CharField(
        max_length=QUERY_MAX, help_text="Words to find, Chinese or not (at most 64 characters)."
    )
    kind = fields.ChoiceField(
        choices=KINDS, default="shops", help_text="What to find: shops (default), notes or users."
    )
    city = fields.CharField(
        required=False,
        max_length=32,
        pattern=r"^[a-z0-9-]{1,32}$",  # a city's code, as shops.models.CITY_CODE
        pattern_message=_("A city's code: lowercase letters, digits and hyphens."),
        help_text="Shops of this city only: a city's `code` (GET /api/cities); without it, "
        "the default city. Notes and users are of no city and ignore it; searching shops, a "
        "code of no city is 404 `city_not_found`.",
    )


class FragmentSerializer(serializers.Serializer):
    text = serializers.CharField()
    hit = serializers.BooleanField(help_text="Whether this text matched the query.")


class HighlightField(serializers.DictField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            child=serializers.ListField(child=FragmentSerializer()),
            help_text="Per field shown, its text as fragments in order; the hits have hit=true.",
            **kwargs,
        )


@cache
def hit_serializer(kind: str) -> type[serializers.Serializer]:
    """The kind's list item plus `highlight`."""
    item = source(kind).item_serializer
    attrs: dict[str, Any] = {"highlight": HighlightField(), "__module__": __name__}
    meta = getattr(item, "Meta", None)
    if meta is not None and hasattr(meta, "fields"):
        attrs["Meta"] = type("Meta", (meta,), {"fields": [*meta.fields, "highlight"]})
    name = f"{kind.capitalize().removesuffix('s')}SearchHitSerializer"
    return type(name, (item,), attrs)


@cache
def search_page_serializer() -> type[serializers.Serializer]:
    """A page of hits of one kind (which one, the query's `kind` says)."""
    hits = PolymorphicProxySerializer(
        component_name="SearchHit",
        serializers=[hit_serializer(kind) for kind in KINDS if kind in kinds()],
        resource_type_field_name=None,
        many=True,
    )
    return type(
        "SearchPageSerializer",
        (serializers.Serializer,),
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": hits,
            "__module__": __name__,
        },
    )
