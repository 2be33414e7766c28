"""The demo's prices fit their shops: a banquet house is dearer than a dumpling stall."""

from __future__ import annotations

import pytest

from shops import demo
from shops.models import Shop


@pytest.mark.django_db
def test_each_food_brand_is_priced_within_its_own_range() -> None:
    demo.seed_shops()

    for brand, (low, high) in demo.BRAND_PRICES.items():
        prices = list(
            Shop.objects.filter(name__startswith=brand).values_list("avg_price", flat=True)
        )
        assert all(low <= price <= high for price in prices), (brand, prices)
    banquet = Shop.objects.filter(name__startswith="新荣记").values_list("avg_price", flat=True)
    assert banquet
    assert min(banquet) >= 600


def test_a_draw_keeps_its_place_in_the_brand_range() -> None:
    assert demo.brand_price("新荣记", 20, 20, 300) == 600
    assert demo.brand_price("新荣记", 300, 20, 300) == 1000
    assert demo.brand_price("Kidsland", 123, 80, 250) == 123  # not a priced brand: as drawn
