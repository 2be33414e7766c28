"""Every error code the notifications app answers with, in one place
(docs/product/notifications.md); a watch of no voucher answers vouchers' own
`voucher_not_found`."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    NOT_A_SALE = "not_a_sale"  # 409: only flash sales start; a normal voucher has no start
    SALE_STARTED = "sale_started"  # 409: a sale on, over or voided has nothing to wait for
    # 421: the notification stream is served by the stream process (docs/operations.md
    # "Notification stream"), and this request reached the WSGI app instead.
    STREAM_ELSEWHERE = "stream_elsewhere"
