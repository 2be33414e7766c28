"""Site-wide visitors per kind of page (decision 495): the API read each page of the web
client makes first counts a view of that kind and of the site, through the same buffer
and flush as a shop's; scrolling counts nothing more; the anonymous cap and its /64 rule
hold for every kind; the admin's page shows the numbers."""

from __future__ import annotations

import pytest

from tests.factories import BlogFactory, ShopFactory
from traffic import keys, visits


def _uv_pv(redis_client, subject: str) -> tuple[int, int]:
    day = visits.local_day()
    pv = redis_client.get(keys.visits_pv(subject, day))
    return redis_client.pfcount(keys.visits_uv(subject, day)), int(pv or 0)


def _open_every_page(api, shop_id: int, blog_id: int) -> None:
    assert api.get("/api/blogs/hot").status_code == 200  # the home page
    assert api.get(f"/api/shops/{shop_id}").status_code == 200
    assert api.get(f"/api/blogs/{blog_id}").status_code == 200
    assert api.get("/api/search", {"q": "茶"}).status_code == 200
    assert api.get("/api/feed").status_code == 200


@pytest.mark.django_db
def test_each_kind_of_page_counts_for_itself_and_for_the_site(
    api, user, user_api, redis_client, fake_clock
) -> None:
    shop, blog = ShopFactory(), BlogFactory()

    _open_every_page(user_api, shop.id, blog.id)
    api.get("/api/blogs/hot", HTTP_X_CLIENT_ID="somebody-else")  # a second visitor, at home
    # Scrolling, a missing note and a refused feed count nothing.
    user_api.get("/api/blogs/hot", {"page": 2})
    user_api.get("/api/search", {"q": "茶", "page": 2})
    user_api.get("/api/feed", {"max_time": 1_000_000_000_000, "offset": 0})
    assert user_api.get("/api/blogs/999999").status_code == 404
    assert api.get("/api/feed").status_code == 401
    visits.flush()

    assert _uv_pv(redis_client, visits.page_subject("home")) == (2, 2)
    for kind in ("shop", "note", "search", "feed"):
        assert _uv_pv(redis_client, visits.page_subject(kind)) == (1, 1), kind
    assert _uv_pv(redis_client, visits.shop_subject(shop.id)) == (1, 1)  # as before
    assert _uv_pv(redis_client, visits.SITE) == (2, 6)


@pytest.mark.django_db
def test_the_anonymous_cap_and_its_64_rule_hold_on_every_kind_of_page(
    api, redis_client, fake_clock, settings
) -> None:
    settings.ANON_VISITORS_PER_ADDRESS = 5
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    blog = BlogFactory()

    for i in range(40):  # one host: a new address of its /64 and a new id every time
        headers = {
            "HTTP_X_CLIENT_ID": f"script-{i:06d}",
            "HTTP_X_FORWARDED_FOR": f"2001:db8:7:7:{i:x}::1",
        }
        api.get("/api/blogs/hot", **headers)
        api.get(f"/api/blogs/{blog.id}", **headers)
        api.get("/api/search", {"q": "茶"}, **headers)
    api.get("/api/blogs/hot", HTTP_X_CLIENT_ID="phone-0001", HTTP_X_FORWARDED_FOR="2001:db8:8::1")
    visits.flush()

    # 5 ids of their own, the rest as the one /64; the phone of another /64.
    assert _uv_pv(redis_client, visits.page_subject("home")) == (5 + 1 + 1, 41)
    assert _uv_pv(redis_client, visits.page_subject("note")) == (5 + 1, 40)
    assert _uv_pv(redis_client, visits.page_subject("search")) == (5 + 1, 40)
    assert _uv_pv(redis_client, visits.SITE) == (5 + 1 + 1, 121)


@pytest.mark.django_db
def test_the_statistics_read_one_kind_of_page(api, staff_api, fake_clock) -> None:
    blog = BlogFactory()
    for i in range(3):
        api.get(f"/api/blogs/{blog.id}", HTTP_X_CLIENT_ID=f"reader-{i:04d}")
    api.get("/api/blogs/hot", HTTP_X_CLIENT_ID="reader-0000")
    visits.flush()

    notes = staff_api.get("/api/stats/uv", {"page": "note"}).json()
    site = staff_api.get("/api/stats/uv").json()
    both = staff_api.get("/api/stats/uv", {"page": "note", "shop_id": 1})

    assert (notes["page"], notes["uv"], notes["pv"]) == ("note", 3, 3)
    assert (site["page"], site["uv"], site["pv"]) == (None, 3, 4)
    assert both.status_code == 400
    assert "page" in both.json()["errors"]
    assert staff_api.get("/api/stats/uv", {"page": "nowhere"}).status_code == 400


@pytest.mark.django_db
def test_the_admins_visitors_page_shows_each_kind_and_a_chart(
    api, admin_client, fake_clock
) -> None:
    shop = ShopFactory()
    for i in range(4):
        api.get(f"/api/shops/{shop.id}", HTTP_X_CLIENT_ID=f"visitor-{i:04d}")
    api.get("/api/blogs/hot", HTTP_X_CLIENT_ID="visitor-0000")
    visits.flush()

    page = admin_client.get("/admin/traffic/report/", HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()

    assert page.status_code == 200
    assert "Visitors and page views" in html
    shop_row = html.split('data-page="shop"')[1].split("</tr>")[0]
    assert '<td class="uv">4</td>' in shop_row
    assert '<td class="pv">4</td>' in shop_row
    site_row = html.split('data-page="site"')[1].split("</tr>")[0]
    assert '<td class="uv-today">4</td>' in site_row
    assert '<td class="pv-today">5</td>' in site_row
    home_row = html.split('data-page="home"')[1].split("</tr>")[0]
    assert '<td class="pv">1</td>' in home_row
    assert html.count('<rect class="pv"') == 30  # a bar per day of the window
    assert 'height="160.0"' in html  # today's, the tallest
    assert "<script" not in html.split('id="visits-chart"')[1]
    index = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<a href="/admin/traffic/report/">Visitors and page views</a>' in index


def test_the_demos_past_shop_views_count_for_the_shop_pages_too(redis_client) -> None:
    from datetime import date

    from traffic import demo

    day = date(2026, 3, 2)
    demo.seed_views(visits.shop_subject(9), {day: (["client:a", "client:b"], 7)})
    demo.seed_views(visits.shop_subject(9), {day: (["client:a", "client:b"], 7)})  # again

    for subject in (visits.shop_subject(9), visits.page_subject("shop"), visits.SITE):
        name = visits.local_day(day)
        assert redis_client.pfcount(keys.visits_uv(subject, name)) == 2, subject
        assert redis_client.get(keys.visits_pv(subject, name)) == b"7", subject
        assert redis_client.ttl(keys.visits_pv(subject, name)) > 0


def test_every_kind_of_page_has_its_label() -> None:
    assert set(visits.PAGE_LABELS) == {None, *visits.PAGE_KINDS}


@pytest.mark.django_db
def test_the_visitors_page_and_the_page_kinds_are_for_staff_only(client, user, user_api) -> None:
    """A signed-in non-staff user reaches neither the admin's page nor the API's numbers."""
    client.force_login(user)

    page = client.get("/admin/traffic/report/", HTTP_ACCEPT_LANGUAGE="en")

    assert page.status_code == 302
    assert "/admin/login/" in page["Location"]
    assert user_api.get("/api/stats/uv?page=home").status_code == 403
