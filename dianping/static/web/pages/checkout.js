// Paying a bill at a shop with the best coupon, and the bills paid (with their refunds).

import { act } from "../lib/act.js";
import { api, get, idempotencyKey } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fen, fmt, money, when } from "../lib/format.js";
import { screen } from "../lib/screen.js";
import { needLogin } from "../lib/session.js";
import { billState } from "../lib/states.js";

export async function checkoutPage(params) {
  const show = screen();
  if (needLogin()) return;
  const shopId = params.get("shop");
  if (!shopId) { location.hash = "#/"; return; }
  const shop = await get(`shops/${shopId}`);
  const status = h("p", { class: "message", role: "status" });
  const amount = h("input", { id: "amount", name: "amount", inputmode: "decimal", placeholder: "128.50", autocomplete: "off" });
  const look = h("button", { type: "submit", class: "secondary" }, gettext("Find my coupons"));
  const choices = h("fieldset", { class: "coupons", hidden: true }, h("legend", {}, gettext("Coupon")));
  const summary = h("p", { class: "summary", role: "status" });
  const pay = h("button", { type: "button", hidden: true }, gettext("Pay"));
  const result = h("div");
  let bill = NaN;
  let options = [];
  let key = idempotencyKey(); // one per bill: a retried Pay never pays twice
  const chosen = () => {
    const picked = choices.querySelector("input:checked");
    return options.find((o) => o.id === (picked && picked.value)) || null;
  };
  const refresh = () => {
    const coupon = chosen();
    const off = coupon ? coupon.discount : 0;
    summary.textContent = fmt(gettext("Bill %(bill)s · coupon −%(off)s · you pay %(pay)s"),
      { bill: money(bill), off: money(off), pay: money(bill - off) });
    pay.textContent = fmt(gettext("Pay %(amount)s"), { amount: money(bill - off) });
    key = idempotencyKey();
  };
  const form = h("form", { onsubmit: act(look, status, async () => {
    message(status, "");
    bill = fen(amount.value);
    if (Number.isNaN(bill)) { message(status, gettext("Type the bill in yuan, e.g. 128.50.")); return; }
    const found = await get(`coupons/usable?shop_id=${shopId}&amount=${bill}`);
    options = found.usable;
    const radio = (value, checked, disabled, text) => h("label", { class: "choice" },
      h("input", { type: "radio", name: "coupon", value, checked, disabled, onchange: refresh }), text);
    choices.replaceChildren(h("legend", {}, gettext("Coupon")),
      ...found.usable.map((c, i) => radio(c.id, i === 0, false,
        `${c.voucher.title}: −${money(c.discount)}${i === 0 ? gettext(" (best)") : ""}`)),
      radio("", !found.usable.length, false, gettext("No coupon")),
      ...found.unusable.map((c) => radio(c.id, false, true,
        fmt(gettext("%(title)s: needs a bill of %(amount)s"), { title: c.voucher.title, amount: money(c.voucher.amount_condition) }))));
    choices.hidden = false;
    pay.hidden = false;
    refresh();
  }) }, h("label", { for: "amount" }, gettext("Bill (yuan)")), h("div", { class: "row" }, amount, look));
  pay.addEventListener("click", act(pay, status, async () => {
    const coupon = chosen();
    const body = { shop_id: Number(shopId), amount: bill };
    if (coupon) body.coupon_id = coupon.id;
    const order = await api("POST", "shop-orders", body, { "Idempotency-Key": key });
    result.replaceChildren(billCard(order, status));
    message(status, order.discount
      ? fmt(gettext("Paid %(paid)s, %(off)s off with your coupon."), { paid: money(order.payable), off: money(order.discount) })
      : fmt(gettext("Paid %(paid)s."), { paid: money(order.payable) }), true);
    choices.hidden = true;
    return true;
  }));
  show(h("h1", {}, fmt(gettext("Pay at %(shop)s"), { shop: shop.name })), form, choices, summary, h("div", { class: "row" }, pay), status, result);
}

function billCard(order, status) {
  const card = h("article", { class: "card" },
    h("h3", {}, fmt(gettext("%(amount)s paid"), { amount: money(order.payable) })),
    h("p", { class: "shop-name" }, h("a", { href: `#/shops/${order.shop.id}` }, order.shop.name)),
    h("p", { class: "muted" }, fmt(gettext("Bill %(bill)s · discount %(off)s · %(status)s · %(time)s"),
      { bill: money(order.amount), off: money(order.discount), status: billState(order.status), time: when(order.created_at) })));
  if (order.status === "paid") {
    const refund = h("button", { type: "button", class: "secondary" }, gettext("Refund"));
    refund.addEventListener("click", act(refund, status, async () => {
      const refunded = await api("POST", `shop-orders/${order.id}/refund`);
      card.replaceWith(billCard(refunded, status));
      message(status, refunded.coupon_id ? gettext("Refunded; your coupon is back if it is still valid.") : gettext("Refunded."), true);
      return true;
    }));
    card.append(h("div", { class: "row" }, refund));
  }
  return card;
}

export async function billsPage() {
  const show = screen();
  if (needLogin()) return;
  const list = h("div");
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  let lastId = null;
  async function load() {
    const data = await get(`shop-orders${lastId ? `?last_id=${lastId}` : ""}`);
    list.append(...data.results.map((order) => billCard(order, status)));
    lastId = data.last_id;
    more.hidden = !lastId;
    if (!list.children.length) list.append(h("p", {}, gettext("No bills yet.")));
  }
  more.addEventListener("click", act(more, status, load));
  await load();
  show(h("h1", {}, gettext("My bills")), status, list, more);
}
