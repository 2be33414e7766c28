"""Every error code the favourites app answers with, in one place; a favourite of no
shop, note or voucher answers that app's own `shop_not_found`, `blog_not_found` or
`voucher_not_found`, as a watch of no voucher does."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    UNKNOWN_KIND = "unknown_kind"  # 404: favourites are of `shop`, `blog` or `voucher`
