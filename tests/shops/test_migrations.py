"""The cities migrations (decision 392): every existing shop lands in Shanghai, the default
city they make, in slices of the primary key that leave no row behind."""

from __future__ import annotations

import importlib

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("shops", "0010_shop_favourites")]
BACKFILL = importlib.import_module("shops.migrations.0012_shops_into_the_default_city")


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_existing_shops_land_in_the_default_city(monkeypatch) -> None:
    monkeypatch.setattr(BACKFILL, "BATCH", 3)  # several slices, one of them holding no row
    latest = _latest()
    try:
        old = _migrate(BEFORE)
        food = old.get_model("shops", "ShopType").objects.create(name="t")
        Shop = old.get_model("shops", "Shop")
        place = {"type": food, "address": "a", "x": 121.47, "y": 31.23}
        ids = [Shop.objects.create(id=i, name=f"s{i}", **place).id for i in (3, 4, 5, 6, 12, 13)]

        new = _migrate(latest)

        city = new.get_model("shops", "City").objects.get(code=settings.DEFAULT_CITY)
        assert (city.name, city.name_en, city.x, city.y) == ("上海", "Shanghai", 121.4737, 31.2304)
        placed = dict(new.get_model("shops", "Shop").objects.values_list("id", "city_id"))
        assert placed == dict.fromkeys(ids, city.id)
    finally:
        _migrate(latest)
