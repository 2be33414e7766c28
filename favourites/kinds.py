"""What can be saved, and what each kind needs: how its 404 is told, and for shops and
notes the counted row and the cached document that shows the count."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext

from blogs.caches import blog_evict
from blogs.models import Blog
from blogs.selectors import blog_exists
from shops.caches import shop_cache
from shops.models import Shop
from shops.selectors import shop_exists
from toolkit.api import saved
from toolkit.errors import NotFound
from vouchers.selectors import voucher_get

from .errors import Code


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    check: Callable[[int], object]  # raises the owning app's 404 for no such target
    counted: type[Shop] | type[Blog] | None  # the row whose `favourites` moves with saves
    evict: Callable[[int], object] | None  # drops the cached document showing the count


KINDS: dict[str, Kind] = {
    saved.SHOP: Kind(
        saved.SHOP,
        check=lambda i: shop_exists(shop_id=i),
        counted=Shop,
        evict=lambda i: shop_cache().evict(i),
    ),
    saved.BLOG: Kind(
        saved.BLOG,
        check=lambda i: blog_exists(blog_id=i),  # a hidden note is as good as missing
        counted=Blog,
        evict=lambda i: blog_evict(i),
    ),
    saved.VOUCHER: Kind(
        saved.VOUCHER, check=lambda i: voucher_get(voucher_id=i), counted=None, evict=None
    ),
}


def kind_get(name: str) -> Kind:
    kind = KINDS.get(name)
    if kind is None:
        raise NotFound(
            gettext("Only shops, notes (blog) and vouchers can be saved."),
            code=Code.UNKNOWN_KIND,
        )
    return kind
