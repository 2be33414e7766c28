// For shop staff: redeeming a customer's code, and today's redemptions at the shop.

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fen, fmt, money, named, when } from "../lib/format.js";
import { screen } from "../lib/screen.js";
import { needLogin } from "../lib/session.js";

// The API's redemption kinds are codes; these are their names for people.
const REDEMPTION_KINDS = { redeem: gettext("code redeemed"), checkout: gettext("used at checkout") };

export async function redeemPage() {
  const show = screen();
  if (needLogin()) return;
  const status = h("p", { class: "message", role: "status" });
  const code = h("input", { id: "redeem-code", name: "code", inputmode: "numeric", maxlength: "14", autocomplete: "off", placeholder: "1234 5678 9012" });
  const amount = h("input", { id: "redeem-amount", name: "amount", inputmode: "decimal", autocomplete: "off" });
  const submit = h("button", { type: "submit" }, gettext("Redeem"));
  const today = h("section");
  async function listToday(shopId) {
    const page = await get(`shops/${shopId}/redemptions`);
    today.replaceChildren(h("h2", {}, fmt(gettext("Today at this shop (%(count)s)"), { count: page.count })),
      ...page.results.map((w) => h("p", { class: "card" },
        fmt(gettext("%(time)s · %(kind)s · −%(off)s · order %(order)s"),
          { time: when(w.redeemed_at), kind: named(REDEMPTION_KINDS, w.kind), off: money(w.discount), order: w.order_id }),
        w.reversed_at ? gettext(" · reversed") : "")));
  }
  const form = h("form", { onsubmit: act(submit, status, async () => {
    const body = { code: code.value.replace(/\s+/g, "") };
    if (amount.value.trim()) {
      body.amount = fen(amount.value);
      if (Number.isNaN(body.amount)) { message(status, gettext("Type the bill in yuan, e.g. 128.50.")); return; }
    }
    const done = await api("POST", "redemptions", body);
    message(status, fmt(gettext("Redeemed: −%(off)s (order %(order)s)."), { off: money(done.discount), order: done.order_id }), true);
    code.value = "";
    amount.value = "";
    await listToday(done.shop_id);
  }) },
  h("label", { for: "redeem-code" }, gettext("Coupon code (12 digits)")), code,
  h("label", { for: "redeem-amount" }, gettext("Bill in yuan (for 满减 and 折扣 coupons)")), amount,
  h("p", {}, submit));
  show(h("h1", {}, gettext("Redeem a coupon")),
    h("p", { class: "muted" }, gettext("For shop staff: type the code the customer shows, or scan their QR code into the field.")),
    form, status, today);
}
