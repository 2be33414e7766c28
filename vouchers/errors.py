"""Every error code the vouchers app answers with, in one place (docs/product/vouchers.md)."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    # 404: the thing does not exist, or is not the caller's to see
    VOUCHER_NOT_FOUND = "voucher_not_found"
    ORDER_NOT_FOUND = "order_not_found"
    COUPON_NOT_FOUND = "coupon_not_found"
    SHOP_ORDER_NOT_FOUND = "shop_order_not_found"
    CODE_NOT_FOUND = "code_not_found"
    # 409: the flash sale and claims
    NOT_STARTED = "not_started"
    ENDED = "ended"
    SOLD_OUT = "sold_out"
    DUPLICATE_ORDER = "duplicate_order"
    LIMIT_REACHED = "limit_reached"
    NOT_A_SALE = "not_a_sale"  # a normal voucher's seckill: claim it instead
    SALE_ONLY = "sale_only"  # a flash sale's claim: grab it in its sale instead
    CHALLENGE_OFF = "challenge_off"  # a challenge asked of a sale that needs none
    # 403: a sale's challenge before the grab (vouchers/sale/challenge.py)
    CHALLENGE_REQUIRED = "challenge_required"  # the sale needs one; the grab sent none
    CHALLENGE_EXPIRED = "challenge_expired"  # none open: never fetched, expired or used
    CHALLENGE_WRONG = "challenge_wrong"  # a wrong answer (or another sale's or user's)
    # 409: operators' writes
    SALE_STARTED = "sale_started"
    SALE_ACTIVE = "sale_active"
    RULE_FROZEN = "rule_frozen"
    VOUCHER_HAS_ORDERS = "voucher_has_orders"
    BUCKETS_FIXED = "buckets_fixed"  # a sale's buckets are chosen when it is created
    # 409: an order's life
    ORDER_PENDING = "order_pending"
    ORDER_UNPAID = "order_unpaid"
    ORDER_PAID = "order_paid"
    ORDER_CANCELLED = "order_cancelled"
    ORDER_REFUNDED = "order_refunded"
    # 409: using a coupon (checkout, redemption, refund)
    COUPON_UNPAID = "coupon_unpaid"
    COUPON_CANCELLED = "coupon_cancelled"
    COUPON_USED = "coupon_used"
    COUPON_EXPIRED = "coupon_expired"
    COUPON_REFUNDED = "coupon_refunded"
    BELOW_THRESHOLD = "below_threshold"
    WRONG_SHOP = "wrong_shop"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    # 400 beyond field validation
    AMOUNT_REQUIRED = "amount_required"
