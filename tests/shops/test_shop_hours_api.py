"""Opening hours through the API: `open_now` on every shop answer, computed per request
from the cached document (no query, no extra round trip, never cached), the list's
`open_now` filter, and the writes (staff API, admin, `shop_hours_set`) that evict every
cached copy and keep the legacy `open_hours` text in step."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from shops import hours, services
from shops.caches import shop_cache
from shops.errors import InvalidHours, ShopNotFound
from shops.models import Shop
from tests.factories import ShopFactory, ShopTypeFactory
from toolkit.redis import keys

SHANGHAI = ZoneInfo("Asia/Shanghai")
CENTRE = {"x": 121.4737, "y": 31.2304}
# Monday 17:00 to Tuesday 02:00 (and Monday lunch); 2026-11-30 is a Monday.
NIGHTS = {"weekly": {"mon": [["10:00", "14:00"], ["17:00", "02:00"]]}}
DAYS_ONLY = {"weekly": {d: [["09:00", "18:00"]] for d in hours.DAYS}}


def _set_local(fake_clock, text: str) -> None:
    """Move the test clock to a local (Shanghai) time, as "2026-12-01 01:00"."""
    moment = datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)
    fake_clock.value = moment.timestamp()


def _shop(data: dict | None = None, **fields) -> Shop:
    return ShopFactory(hours=None if data is None else hours.validate(data), **fields)


def _open(response) -> dict[int, bool | None]:
    assert response.status_code == 200, response.content
    return {shop["id"]: shop["open_now"] for shop in response.json()["results"]}


@pytest.mark.django_db
def test_the_detail_computes_open_now_per_request_from_the_cached_document(
    api, fake_clock, redis_client, django_assert_num_queries
) -> None:
    shop = _shop(NIGHTS)
    _set_local(fake_clock, "2026-12-01 01:00")  # Tuesday 01:00: Monday's night
    first = api.get(f"/api/shops/{shop.id}").json()
    cached = redis_client.get(keys.cache("shop", str(shop.id)))

    _set_local(fake_clock, "2026-12-01 02:00")
    with django_assert_num_queries(0):
        later = api.get(f"/api/shops/{shop.id}").json()

    assert first["open_now"] is True
    assert first["hours"]["weekly"]["mon"] == [["10:00", "14:00"], ["17:00", "02:00"]]
    assert later["open_now"] is False  # the clock alone moved it
    assert redis_client.get(keys.cache("shop", str(shop.id))) == cached  # not re-cached
    assert b"open_now" not in cached
    assert {**later, "open_now": True} == first


@pytest.mark.django_db
def test_a_near_cache_copy_still_answers_open_now_of_the_moment(api, fake_clock, settings) -> None:
    shop = _shop(NIGHTS)
    _set_local(fake_clock, "2026-11-30 13:59")
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is True
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is True  # near cache, if on

    _set_local(fake_clock, "2026-11-30 14:00")

    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is False


@pytest.mark.django_db
def test_a_shop_without_structured_hours_has_open_now_null(api) -> None:
    shop = _shop(None)

    body = api.get(f"/api/shops/{shop.id}").json()

    assert (body["hours"], body["open_now"], body["open_hours"]) == (None, None, "10:00-22:00")


@pytest.mark.django_db
def test_a_document_cached_before_hours_existed_answers_null(api, redis_client) -> None:
    shop = _shop(NIGHTS)
    old = api.get(f"/api/shops/{shop.id}").json()
    del old["hours"], old["open_now"]
    key = keys.cache("shop", str(shop.id))
    redis_client.set(key, json.dumps(old, separators=(",", ":")), keepttl=True)
    near = shop_cache().near
    if near is not None:
        near.evict(key)

    body = api.get(f"/api/shops/{shop.id}").json()
    listed = api.get("/api/shops", {"type_id": shop.type_id}).json()["results"][0]

    assert (body["hours"], body["open_now"]) == (None, None)
    assert (listed["hours"], listed["open_now"]) == (None, None)


@pytest.mark.django_db
def test_every_list_of_shops_carries_open_now(
    api, fake_clock, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    kind = ShopTypeFactory()
    night = _shop(NIGHTS, type=kind, name="夜宵火锅", x=121.4737, y=31.2304)
    day = _shop(DAYS_ONLY, type=kind, name="白天咖啡", x=121.4747, y=31.2304)
    bare = _shop(None, type=kind, name="无时咖啡", x=121.4757, y=31.2304)
    with django_capture_on_commit_callbacks(execute=True):
        for shop in (night, day, bare):
            services.shop_save(shop=shop, fields=["name"])  # indexes it for search too
    services.shop_geo_rebuild()
    _set_local(fake_clock, "2026-12-01 01:00")
    expected = {night.id: True, day.id: False, bare.id: None}

    assert _open(api.get("/api/shops", {"type_id": kind.id})) == expected
    assert _open(api.get("/api/shops", {"type_id": kind.id, **CENTRE})) == expected
    assert _open(api.get("/api/shops", {"type_id": kind.id, **CENTRE, "sort": "score"})) == expected
    assert _open(api.get(f"/api/shops/{night.id}/nearby")) == {day.id: False, bare.id: None}
    assert _open(api.get("/api/search", {"q": "火锅"})) == {night.id: True}
    assert _open(api.get("/api/search", {"q": "咖啡"})) == {day.id: False, bare.id: None}

    _set_local(fake_clock, "2026-12-01 12:00")
    assert _open(api.get("/api/shops", {"type_id": kind.id})) == {
        night.id: False,
        day.id: True,
        bare.id: None,
    }


@pytest.fixture
def five(fake_clock):
    """Five shops of a type, east of the centre every 100 m: open at Tuesday 01:00 are the
    1st, 3rd and 4th (the 2nd opens by day, the 5th has no hours)."""
    kind = ShopTypeFactory()
    plans = [NIGHTS, DAYS_ONLY, NIGHTS, {"weekly": {"tue": [["00:00", "24:00"]]}}, None]
    shops = [
        _shop(plan, type=kind, x=round(121.4737 + n * 0.00105, 6), y=31.2304, score=40 + n)
        for n, plan in enumerate(plans)
    ]
    services.shop_geo_rebuild()
    _set_local(fake_clock, "2026-12-01 01:00")
    return kind, shops


@pytest.mark.django_db
def test_open_now_filters_the_list_by_type_with_exact_pages(api, five) -> None:
    kind, (a, _, c, d, _) = five
    query = {"type_id": kind.id, "open_now": "true"}

    first = api.get("/api/shops", {**query, "page_size": 2}).json()
    second = api.get("/api/shops", {**query, "page_size": 2, "page": 2}).json()

    assert [s["id"] for s in first["results"]] == [a.id, c.id]
    assert first["count"] == 3
    assert first["next"] is not None
    assert [s["id"] for s in second["results"]] == [d.id]
    assert second["next"] is None
    assert all(s["open_now"] for s in first["results"] + second["results"])
    best_first = api.get("/api/shops", {**query, "sort": "score"}).json()["results"]
    assert [s["id"] for s in best_first] == [d.id, c.id, a.id]
    assert api.get("/api/shops", {**query, "page": 9}).json()["results"] == []
    everything = api.get("/api/shops", {"type_id": kind.id, "open_now": "false"}).json()
    assert everything["count"] == 5  # false filters nothing


@pytest.mark.django_db
def test_open_now_filters_the_hits_near_a_point_nearest_first(api, five) -> None:
    kind, (a, _, c, d, _) = five
    query = {"type_id": kind.id, **CENTRE, "open_now": "true"}

    first = api.get("/api/shops", {**query, "page_size": 2}).json()
    second = api.get("/api/shops", {**query, "page_size": 2, "page": 2}).json()

    assert [s["id"] for s in first["results"]] == [a.id, c.id]
    assert (first["count"], len(second["results"])) == (3, 1)
    assert second["results"][0]["id"] == d.id
    assert second["results"][0]["distance"] > first["results"][1]["distance"]
    every_type = api.get("/api/shops", {**CENTRE, "open_now": "true", "price_max": 1000}).json()
    assert [s["id"] for s in every_type["results"]] == [a.id, c.id, d.id]


@pytest.mark.django_db
def test_open_now_by_type_looks_at_a_bounded_number_of_shops(api, five, settings) -> None:
    kind, (a, _, c, _, _) = five
    settings.SHOP_OPEN_NOW_SCAN = 3  # the first three with hours: a, b, c

    body = api.get("/api/shops", {"type_id": kind.id, "open_now": "true"}).json()

    assert [s["id"] for s in body["results"]] == [a.id, c.id]
    assert body["count"] == 2


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["1", "yes", "True", ""])
def test_open_now_is_true_or_false(api, value) -> None:
    response = api.get("/api/shops", {"open_now": value})

    assert response.status_code == 400
    assert "open_now" in response.json()["errors"]


# --- writes -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_staff_patch_of_hours_evicts_the_cached_shop_and_derives_open_hours(
    staff_api, api, fake_clock
) -> None:
    shop = _shop(None)
    services.shop_geo_rebuild()
    _set_local(fake_clock, "2026-12-01 01:00")
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is None  # cached
    listed = {"type_id": shop.type_id, **CENTRE}
    assert _open(api.get("/api/shops", listed)) == {shop.id: None}

    patched = staff_api.patch(f"/api/shops/{shop.id}", {"hours": NIGHTS}, format="json")

    assert patched.status_code == 200, patched.content
    assert patched.json()["open_now"] is True
    body = api.get(f"/api/shops/{shop.id}").json()
    assert body["open_now"] is True
    assert body["hours"] == hours.validate(NIGHTS)
    assert body["open_hours"] == "10:00-14:00, 17:00-02:00"
    assert _open(api.get("/api/shops", listed)) == {shop.id: True}
    assert _open(api.get("/api/shops", {**listed, "open_now": "true"})) == {shop.id: True}

    staff_api.patch(f"/api/shops/{shop.id}", {"hours": DAYS_ONLY}, format="json")
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is False
    assert api.get(f"/api/shops/{shop.id}").json()["open_hours"] == "09:00-18:00"
    # While there are hours, a text given alone is derived again from them.
    staff_api.patch(f"/api/shops/{shop.id}", {"open_hours": "whenever"}, format="json")
    assert Shop.objects.get(pk=shop.pk).open_hours == "09:00-18:00"

    staff_api.patch(f"/api/shops/{shop.id}", {"hours": None}, format="json")
    body = api.get(f"/api/shops/{shop.id}").json()
    assert (body["hours"], body["open_now"], body["open_hours"]) == (None, None, "09:00-18:00")


@pytest.mark.django_db
def test_staff_create_with_hours(staff_api, fake_clock) -> None:
    kind = ShopTypeFactory()
    _set_local(fake_clock, "2026-11-30 12:00")
    payload = {
        "name": "N",
        "type_id": kind.id,
        "address": "a",
        "x": 121.47,
        "y": 31.23,
        "hours": DAYS_ONLY,
        "open_hours": "ignored",
    }

    body = staff_api.post("/api/shops", payload, format="json").json()

    assert (body["open_now"], body["open_hours"]) == (True, "09:00-18:00")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"weekly": {"mon": [["10:00", "14:00"], ["12:00", "16:00"]]}}, "mon: opening ranges"),
        ({"weekly": {"mon": [["10:00", "25:00"]]}}, "25:00 is not an end time"),
        ({"weekly": {}, "tz": "UTC"}, "Unknown key in opening hours: tz"),
        ("10:00-22:00", "must be an object"),
    ],
)
def test_staff_patch_refuses_bad_hours_and_changes_nothing(staff_api, given, says) -> None:
    shop = _shop(DAYS_ONLY)

    response = staff_api.patch(
        f"/api/shops/{shop.id}", {"hours": given}, format="json", HTTP_ACCEPT_LANGUAGE="en"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert says in response.json()["errors"]["hours"][0]
    assert Shop.objects.get(pk=shop.pk).hours == hours.validate(DAYS_ONLY)


@pytest.mark.django_db(transaction=True)
def test_shop_hours_set_validates_saves_and_evicts(api, fake_clock) -> None:
    shop = _shop(None)
    _set_local(fake_clock, "2026-11-30 20:00")
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is None  # cached

    saved = services.shop_hours_set(shop_id=shop.id, hours=NIGHTS)

    assert saved.open_hours == "10:00-14:00, 17:00-02:00"
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is True
    with pytest.raises(InvalidHours):
        services.shop_hours_set(shop_id=shop.id, hours={"weekly": {"mon": [["1", "2"]]}})
    with pytest.raises(ShopNotFound):
        services.shop_hours_set(shop_id=424242, hours=NIGHTS)
    services.shop_hours_set(shop_id=shop.id, hours=None)
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is None


def _admin_form(shop: Shop, **overrides) -> dict:
    form = {
        "name": shop.name,
        "type": shop.type_id,
        "city": shop.city_id,
        "images": "[]",
        "area": shop.area,
        "address": shop.address,
        "x": shop.x,
        "y": shop.y,
        "avg_price": shop.avg_price,
        "open_hours": shop.open_hours,
        "hours": "",
        "staff-TOTAL_FORMS": 0,
        "staff-INITIAL_FORMS": 0,
    }
    return {**form, **overrides}


@pytest.mark.django_db(transaction=True)
def test_the_admin_edits_hours_as_validated_json(admin_client, api, fake_clock) -> None:
    shop = _shop(None)
    _set_local(fake_clock, "2026-12-01 01:00")
    assert api.get(f"/api/shops/{shop.id}").json()["open_now"] is None  # cached
    url = f"/admin/shops/shop/{shop.id}/change/"

    refused = admin_client.post(
        url, _admin_form(shop, hours='{"weekly": {"mon": [["9", "2"]]}}'), HTTP_ACCEPT_LANGUAGE="en"
    )
    saved = admin_client.post(url, _admin_form(shop, hours=json.dumps(NIGHTS)))

    assert refused.status_code == 200  # the form comes back with the error
    assert "mon: 9 is not a start time" in str(refused.context["adminform"].form.errors["hours"])
    assert saved.status_code == 302
    body = api.get(f"/api/shops/{shop.id}").json()
    assert (body["open_now"], body["open_hours"]) == (True, "10:00-14:00, 17:00-02:00")
    page = admin_client.get(url).content.decode()
    assert "closed_dates" in page  # the field and its help text
