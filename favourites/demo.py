"""Demo favourites for `seed_demo`: demo user 1 (13800000001) has saved three shops, two
notes by others and the flash sale starting soonest (which sets its reminder, as a
watch). Safe to re-run: saving is idempotent."""

from __future__ import annotations

from accounts.models import User
from blogs.models import Blog
from shops.models import Shop
from toolkit import clock
from toolkit.api import saved
from vouchers.models import Voucher

from .models import Favourite
from .services import favourite_save


def seed_favourites(users: list[User]) -> int:
    """Returns how many favourites demo user 1 has."""
    if not users:
        return 0
    me = users[0]
    sale = (
        Voucher.objects.filter(
            type=Voucher.Kind.SECKILL, status=Voucher.Status.PENDING, begin_time__gt=clock.now()
        )
        .order_by("begin_time", "id")
        .values_list("id", flat=True)
        .first()
    )
    notes = (
        Blog.objects.filter(status=Blog.Status.VISIBLE)
        .exclude(user=me)
        .order_by("-liked", "-id")
        .values_list("id", flat=True)[:2]
    )
    shops = Shop.objects.order_by("id").values_list("id", flat=True)[:3]
    wanted = [(saved.VOUCHER, sale)] if sale is not None else []
    wanted += [(saved.BLOG, i) for i in notes] + [(saved.SHOP, i) for i in reversed(shops)]
    for kind, object_id in wanted:  # the first shop saved last: on top of the list
        favourite_save(user_id=me.id, kind=kind, object_id=object_id)
    return Favourite.objects.filter(user=me).count()
