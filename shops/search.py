"""Shops as search documents (search.documents): found by name, type, district and
address, within their city; ranked among equals by score, then reviews, then sales."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from search.documents import Ranking, Source, Texts
from toolkit.api import saved

from .models import Shop, ShopType
from .serializers import ShopCardSerializer


class ShopSource(Source):
    kind = "shops"
    number = 1
    weights = {"name": 10, "type": 3, "area": 4, "address": 2}
    ranking = Ranking(model=Shop, popularity=("score", "comments", "sold"))
    item_serializer = ShopCardSerializer
    highlighted = ("name", "area", "address")

    def texts(self, ids: Iterable[int], *, lock: bool = False) -> dict[int, Texts]:
        shops = Shop.objects.filter(pk__in=list(ids))
        if lock:
            shops = shops.select_for_update()
        rows = list(shops.values_list("id", "name", "type_id", "area", "address"))
        # Apart, unlocked: locking the type's row too would queue every shop of the type.
        types = dict(ShopType.objects.filter(pk__in={r[2] for r in rows}).values_list("id", "name"))
        return {
            shop_id: {
                "name": name,
                "type": types.get(type_id, ""),
                "area": area,
                "address": address,
            }
            for shop_id, name, type_id, area, address in rows
        }

    def all_ids(self) -> Any:
        return Shop.objects.order_by("id").values_list("id", flat=True)

    def items(self, ids: list[int], *, viewer_id: int | None) -> dict[int, dict[str, Any]]:
        """As the shop lists show them: with the reader's `saved` marker (a round trip of
        its own for a signed-in reader: the ids come from the search)."""
        from .selectors import shop_documents

        documents = shop_documents(ids)
        saved.mark(documents.values(), saved.saved_states(viewer_id, saved.SHOP, ids))
        return documents

    def scope(self, *, city: str | None) -> dict[str, Any]:
        """A shop is found in its city only (decision 395)."""
        from .cities import city_id

        return {"city": city_id(city)}
