"""Index maintenance (GEO, Bloom), demo data, and visit counting on the shop detail path."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import call_command

from accounts import keys as accounts_keys
from shops import caches as shops_caches
from shops import keys, services
from shops.caches import shop_bloom
from shops.models import Shop, ShopType
from shops.serializers import ShopDocumentSerializer
from tests.factories import ShopFactory, ShopTypeFactory, default_city
from tests.helpers import count_round_trips, run_concurrently, warm_near_cache
from toolkit.redis import keys as toolkit_keys
from traffic import keys as traffic_keys
from traffic import visits


def _geo(type_id: int) -> str:
    """The GEO set of a type's shops in the default city, where the factories put them."""
    return keys.geo_shops(default_city().id, type_id)


@pytest.mark.django_db
def test_load_shop_geo_rebuilds_and_drops_what_is_stale(redis_client, capsys) -> None:
    food = ShopTypeFactory()
    shops = [ShopFactory(type=food, x=121.47 + i / 1000) for i in range(5)]
    redis_client.geoadd(_geo(food.id), [121.4, 31.2, 999_999])  # a shop long gone
    redis_client.geoadd(_geo(424242), [121.4, 31.2, 1])  # a type long gone

    call_command("load_shop_geo")
    call_command("load_shop_geo")  # safe to repeat

    members = {int(m) for m in redis_client.zrange(_geo(food.id), 0, -1)}
    assert members == {s.id for s in shops}
    assert not redis_client.exists(_geo(424242))
    assert all(shop_bloom().might_contain(str(s.id)) for s in shops)
    out = capsys.readouterr().out
    assert "GEO: 5 shops in 1 sets of a city and type (1 cities); Bloom: 5 ids" in out


@pytest.mark.django_db(transaction=True)
def test_geo_rebuild_keeps_a_move_made_while_it_ran(redis_client, monkeypatch) -> None:
    food, ktv = ShopTypeFactory(), ShopTypeFactory()
    shop = ShopFactory(type=food)
    real_rename = redis_client.__class__.rename
    moved: list[bool] = []

    def rename_after_a_concurrent_move(self, src, dst):
        # An operator moves the shop to another type after the food set was read:
        # its sync updates the old sets, which this RENAME is about to replace.
        if not moved:
            shop.type = ktv
            services.shop_save(shop=shop, fields=["type"])
            moved.append(True)
        return real_rename(self, src, dst)

    monkeypatch.setattr(redis_client.__class__, "rename", rename_after_a_concurrent_move)

    services.shop_geo_rebuild()

    assert redis_client.zscore(_geo(food.id), shop.id) is None
    assert redis_client.zscore(_geo(ktv.id), shop.id) is not None


@pytest.mark.django_db(transaction=True)
def test_concurrent_index_rebuilds_leave_complete_indexes(redis_client) -> None:
    food = ShopTypeFactory()
    shops = [ShopFactory(type=food, x=121.47 + i / 10_000) for i in range(300)]

    run_concurrently(lambda _: services.shop_indexes_rebuild(), workers=4)

    assert redis_client.zcard(_geo(food.id)) == 300
    assert all(shop_bloom().might_contain(str(s.id)) for s in shops)
    assert not redis_client.exists(toolkit_keys.rebuilding(_geo(food.id)))


@pytest.mark.django_db
def test_bloom_rejects_ids_that_never_existed_without_touching_the_db(
    api, redis_client, django_assert_num_queries
) -> None:
    shop = ShopFactory()
    services.shop_bloom_rebuild()

    with django_assert_num_queries(0):
        for shop_id in range(shop.id + 1000, shop.id + 1100):
            assert api.get(f"/api/shops/{shop_id}").status_code == 404
    assert not list(
        redis_client.scan_iter(toolkit_keys.cache_prefix("shop") + "*")
    )  # no null marker
    assert api.get(f"/api/shops/{shop.id}").status_code == 200


@pytest.mark.django_db
def test_seed_demo_has_types_and_shops_near_the_city_centre(api) -> None:
    call_command("seed_demo", "--force")
    call_command("seed_demo", "--force")  # idempotent

    assert ShopType.objects.count() >= 10
    assert Shop.objects.count() >= 500
    assert Shop.objects.values("name").distinct().count() == Shop.objects.count()
    food = ShopType.objects.get(name="美食")
    nearby = api.get(f"/api/shops?type_id={food.id}&x=121.4737&y=31.2304&page_size=10").json()
    assert nearby["count"] >= 50
    assert nearby["results"][0]["distance"] < 500
    assert not Shop.objects.filter(hours__isnull=True).exists()  # structured hours, all
    bar = Shop.objects.filter(type__name="酒吧").first()
    assert bar is not None
    assert bar.hours is not None
    assert bar.hours["weekly"]["fri"] == [["18:00", "02:00"]]  # past midnight
    assert bar.open_hours == "18:00-02:00"
    assert nearby["results"][0]["open_now"] in (True, False)


@pytest.mark.django_db
def test_shop_views_count_unique_visitors_and_page_views(
    api, user_api, user, redis_client, fake_clock
) -> None:
    shop = ShopFactory()
    day = visits.local_day()  # the fake clock stands still: no midnight before the checks

    user_api.get(f"/api/shops/{shop.id}")
    user_api.get(f"/api/shops/{shop.id}")
    api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID="device-0001")
    api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID="device-0001")
    api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID="device-0002")
    api.get("/api/shops/424242")  # a miss is no visit
    visits.flush()

    assert redis_client.pfcount(traffic_keys.visits_uv(f"shop:{shop.id}", day)) == 3
    assert int(redis_client.get(traffic_keys.visits_pv(f"shop:{shop.id}", day))) == 5
    assert redis_client.pfcount(traffic_keys.visits_uv("site", day)) == 3
    assert int(redis_client.get(traffic_keys.visits_pv("site", day))) == 5
    assert not redis_client.exists(traffic_keys.visits_pv("shop:424242", day))
    assert redis_client.ttl(traffic_keys.visits_uv("site", day)) > 300 * 86400


@pytest.mark.django_db
def test_a_logged_in_viewer_counts_once_and_gets_the_token_refreshed(
    user, user_api, redis_client, fake_clock
) -> None:
    shop = ShopFactory()
    token = user_api.token
    redis_client.expire(accounts_keys.login_token(token), 10)

    for client_id in ("device-aaaa", "device-bbbb"):
        assert user_api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID=client_id).status_code == 200
    visits.flush()

    assert redis_client.ttl(accounts_keys.login_token(token)) > 1790
    assert redis_client.pfcount(traffic_keys.visits_uv(f"shop:{shop.id}", visits.local_day())) == 1


CLUSTER = settings.REDIS_CLUSTER


@pytest.mark.django_db
@pytest.mark.parametrize("near_cache", [False, True])
def test_shop_detail_costs_one_round_trip_on_a_hit(user_api, api, monkeypatch, near_cache) -> None:
    shop = ShopFactory()
    services.shop_bloom_rebuild()
    cache = shops_caches.shop_cache()

    def load() -> dict:
        return ShopDocumentSerializer(Shop.objects.get(pk=shop.id)).data

    if near_cache:
        warm_near_cache(cache, shop.id, load)
    else:
        monkeypatch.setattr(cache, "near", None)
        cache.get(shop.id, load)  # in Redis only
    # The token seen by this process, which knows its user: the reader's `saved` marker
    # is read with it (a token not seen before costs the marker a second round trip).
    assert user_api.get(f"/api/shops/{shop.id}").status_code == 200
    round_trips = count_round_trips(monkeypatch)

    assert user_api.get(f"/api/shops/{shop.id}").status_code == 200
    logged_in = list(round_trips)
    assert api.get(f"/api/shops/{shop.id}").status_code == 200
    anonymous = round_trips[len(logged_in) :]

    # Token refresh, `saved` marker, Bloom check and GET share one pipeline: one batch per
    # server (one round trip on one Redis; on a Cluster, one to each node holding a key).
    assert len(logged_in) == len(set(logged_in)) == (len(logged_in) if CLUSTER else 1)
    assert len(anonymous) == len(set(anonymous))
    assert bool(anonymous) is not near_cache  # an anonymous near-cache hit sends nothing
