"""Every error code the notifications app answers with, in one place (SPEC §11)."""

from __future__ import annotations

from enum import StrEnum

from django.utils.translation import gettext_lazy as _

from dianping.errors import NotFound


class Code(StrEnum):
    VOUCHER_NOT_FOUND = "voucher_not_found"  # 404: watching no voucher
    NOT_A_SALE = "not_a_sale"  # 409: only flash sales start; a normal voucher has no start
    SALE_STARTED = "sale_started"  # 409: a sale on, over or voided has nothing to wait for


class VoucherNotFound(NotFound):
    default_code = Code.VOUCHER_NOT_FOUND
    default_detail = _("No such voucher.")
