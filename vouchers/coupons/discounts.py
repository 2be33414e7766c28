"""Discount rules (seed 004): what a coupon takes off an amount, as pure functions.

Money is in fen. Three kinds:
  cash            `value` off (hmdp's 代金券), no threshold;
  full_reduction  `discount_amount` off when the amount reaches `amount_condition` (满减);
  percentage      pay `discount_rate` percent of the amount when it reaches
                  `amount_condition` (折扣), the discount capped at `max_discount` if set.
A discount never exceeds the amount it applies to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from toolkit.validation import choose_one_of

CASH, FULL_REDUCTION, PERCENTAGE = "cash", "full_reduction", "percentage"
TYPES = (CASH, FULL_REDUCTION, PERCENTAGE)


@dataclass(frozen=True, slots=True)
class DiscountRule:
    type: str
    value: int  # a cash voucher's face value (the voucher's actual_value)
    amount_condition: int = 0
    discount_amount: int | None = None
    discount_rate: int | None = None
    max_discount: int | None = None

    @classmethod
    def of(cls, voucher: Any) -> DiscountRule:
        return cls(
            type=voucher.discount_type,
            value=voucher.actual_value,
            amount_condition=voucher.amount_condition,
            discount_amount=voucher.discount_amount,
            discount_rate=voucher.discount_rate,
            max_discount=voucher.max_discount,
        )


def discount_for(rule: DiscountRule, amount: int) -> int | None:
    """Fen off `amount` under `rule`, or None when the amount is below its threshold."""
    if amount < rule.amount_condition:
        return None
    if rule.type == FULL_REDUCTION:
        off = rule.discount_amount or 0
    elif rule.type == PERCENTAGE:
        off = amount * (100 - (rule.discount_rate or 100)) // 100
        if rule.max_discount is not None:
            off = min(off, rule.max_discount)
    else:
        off = rule.value
    return min(off, amount)


def rule_errors(
    *,
    discount_type: str,
    amount_condition: int,
    discount_amount: int | None,
    discount_rate: int | None,
    max_discount: int | None,
) -> dict[str, str]:
    """What is missing or contradictory in a rule, by field ({} when it is sound), in the
    request's language. Used by the staff API and by admin, so both refuse the same rules."""
    errors: dict[str, str] = {}
    if discount_type not in TYPES:
        return {"discount_type": choose_one_of(TYPES)}

    def forbid(field: str, value: int | None, *, empty: object = None) -> None:
        if value != empty:
            errors[field] = gettext("A %(type)s voucher takes no %(field)s.") % {
                "type": discount_type,
                "field": field,
            }

    if discount_type == CASH:
        forbid("amount_condition", amount_condition, empty=0)
        forbid("discount_amount", discount_amount)
        forbid("discount_rate", discount_rate)
        forbid("max_discount", max_discount)
    elif discount_type == FULL_REDUCTION:
        forbid("discount_rate", discount_rate)
        forbid("max_discount", max_discount)
        if not discount_amount:
            errors["discount_amount"] = gettext(
                "A full_reduction voucher needs discount_amount > 0."
            )
        elif amount_condition < discount_amount:
            errors["amount_condition"] = gettext(
                "A full_reduction voucher needs amount_condition >= discount_amount."
            )
    else:
        forbid("discount_amount", discount_amount)
        if discount_rate is None or not 1 <= discount_rate <= 99:
            errors["discount_rate"] = gettext(
                "A percentage voucher needs discount_rate from 1 to 99."
            )
        if max_discount is not None and max_discount < 1:
            errors["max_discount"] = gettext("max_discount must be at least 1 fen when set.")
    return errors
