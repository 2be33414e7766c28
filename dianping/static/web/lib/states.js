// The names of coupon and bill states, for people: the one table every view takes them
// from (a card, an order's page, My vouchers' tabs), so that a state has one name in each
// language and the languages agree on it: a paid, unused coupon is "Unused", "未使用"
// (decision 466). A code the client has no name for is shown as is.

import { named } from "./format.js";

// A coupon (a voucher order) by the API's `status`; `paid` is a paid coupon not used
// yet, `expired` one past its validity, `pending` one still being placed after a sale.
export const COUPON_STATES = {
  pending: gettext("Being placed"),
  unpaid: gettext("To pay"),
  paid: gettext("Unused"),
  used: gettext("Used"),
  expired: gettext("Expired"),
  cancelled: gettext("Cancelled"),
  refunded: gettext("Refunded"),
};

// A bill paid at a shop by the API's `status`.
export const BILL_STATES = { paid: pgettext("a bill", "paid"), refunded: pgettext("a bill", "refunded") };

export const couponState = (code) => named(COUPON_STATES, code);
export const billState = (code) => named(BILL_STATES, code);
