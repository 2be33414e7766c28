from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.models import User
from favourites.models import Favourite
from notifications.models import SaleWatch
from tests.helpers import client_for


@pytest.mark.django_db(transaction=True)
def test_demo_user_1_has_favourites_of_every_kind(fake_clock) -> None:
    call_command("seed_demo", "--force")
    call_command("seed_demo", "--force")  # idempotent: nothing doubles
    demo = User.objects.get(phone="13800000001")
    reader = client_for(demo)

    listed = {
        kind: reader.get(f"/api/favourites?kind={kind}").json()["results"]
        for kind in ("shop", "blog", "voucher")
    }

    assert [len(items) for items in listed.values()] == [3, 2, 1]
    assert Favourite.objects.filter(user=demo).count() == 6
    assert all(item[item["kind"]]["saved"] for items in listed.values() for item in items)
    sale = listed["voucher"][0]["voucher"]
    assert sale["status"] == "pending"  # saved before it starts: its start is told
    assert SaleWatch.objects.filter(user=demo, voucher_id=sale["id"]).exists()
    shop = listed["shop"][0]["shop"]
    assert reader.get(f"/api/shops/{shop['id']}").json()["saved"] is True
