"""`Serializer(items, many=True).data` as the list it is."""

from __future__ import annotations

from typing import Any

from rest_framework.serializers import BaseSerializer


def listed(serializer: BaseSerializer[Any]) -> list[dict[str, Any]]:
    """The data of a `many=True` serializer. DRF builds a ListSerializer there, whose data
    is a list; its stubs type the call as the item's serializer, whose data is a dict."""
    return serializer.data
