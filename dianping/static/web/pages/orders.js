// My vouchers: the orders by state, and one order with its redeem code and QR code.

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fmt, money, when } from "../lib/format.js";
import { qrCanvas } from "../lib/qr.js";
import { screen } from "../lib/screen.js";
import { needLogin } from "../lib/session.js";
import { couponState } from "../lib/states.js";
import { discountText } from "./vouchers.js";

function validity(order) {
  // " · valid until …" and " · used …", as far as the order has them.
  return [
    order.expires_at ? fmt(gettext(" · valid until %(time)s"), { time: when(order.expires_at) }) : "",
    order.used_at ? fmt(gettext(" · used %(time)s"), { time: when(order.used_at) }) : "",
  ].join("");
}

// My vouchers' tabs: (tab, name, what the tab says while empty), each named as the state
// of the coupons it lists. Unused first and by default, as the API's list: a buyer who
// just paid finds the coupon there.
const TABS = [
  ["unused", couponState("paid"), gettext("No coupons to use yet. Grab a flash sale or claim one at a shop.")],
  ["unpaid", couponState("unpaid"), gettext("Nothing to pay.")],
  ["used", couponState("used"), gettext("No coupon used yet.")],
  ["expired", couponState("expired"), gettext("No expired coupons.")],
  ["cancelled", couponState("cancelled"), gettext("No cancelled orders.")],
  ["refunded", couponState("refunded"), gettext("No refunded coupons.")],
];

export async function vouchersPage(params) {
  const show = screen();
  if (needLogin()) return;
  const [current, , empty] = TABS.find(([key]) => key === params.get("tab")) || TABS[0];
  const list = h("div");
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  let lastId = null;
  function orderRow(order) {
    const row = h("article", { class: "card" },
      h("h3", {}, h("a", { href: `#/orders/${order.id}` }, order.voucher.title)),
      h("p", { class: "shop-name" }, h("a", { href: `#/shops/${order.shop.id}` }, order.shop.name)),
      h("p", { class: "muted" }, discountText(order.voucher), " · ", h("span", { class: "state" }, couponState(order.status)), validity(order),
        order.cancelled_at ? fmt(gettext(" · cancelled %(time)s"), { time: when(order.cancelled_at) }) : "",
        order.refunded_at ? fmt(gettext(" · refunded %(time)s"), { time: when(order.refunded_at) }) : ""));
    if (order.status === "unpaid") {
      const pay = h("button", { type: "button" }, fmt(gettext("Pay %(amount)s"), { amount: money(order.voucher.pay_value) }));
      pay.addEventListener("click", act(pay, status, async () => {
        await api("POST", `voucher-orders/${order.id}/pay`);
        message(status, gettext("Paid. Find it under Unused."), true);
        row.remove();
      }));
      const cancel = h("button", { type: "button", class: "secondary" }, gettext("Cancel"));
      cancel.addEventListener("click", act(cancel, status, async () => {
        await api("POST", `voucher-orders/${order.id}/cancel`);
        message(status, gettext("Cancelled."), true);
        row.remove();
      }));
      row.append(h("div", { class: "row" }, pay, cancel));
    } else if (order.status === "paid") {
      row.append(h("div", { class: "row" }, h("a", { href: `#/orders/${order.id}` }, gettext("Show the code")),
        h("a", { href: `#/checkout?shop=${order.voucher.shop_id}` }, gettext("Use it at the shop"))));
    }
    return row;
  }
  async function load() {
    const data = await get(`voucher-orders?status=${current}${lastId ? `&last_id=${lastId}` : ""}`);
    list.append(...data.results.map(orderRow));
    lastId = data.last_id;
    more.hidden = !lastId;
    if (!list.children.length) list.append(h("p", {}, empty));
  }
  more.addEventListener("click", act(more, status, load));
  await load();
  show(h("h1", {}, gettext("My vouchers")),
    h("p", {}, h("a", { href: "#/bills" }, gettext("My bills at shops"))),
    h("div", { class: "tabs", role: "tablist" }, TABS.map(([key, label]) =>
      h("button", { type: "button", role: "tab", "aria-selected": String(key === current),
        onclick: () => { location.hash = `#/vouchers?tab=${key}`; } }, label))),
    status, list, more);
}

export async function orderPage(id, _params, note = "") {
  const show = screen();
  if (needLogin()) return;
  const order = await get(`voucher-orders/${id}`);
  const status = h("p", { class: note ? "message ok" : "message", role: "status" }, note);
  const buttons = [];
  const move = (label, path, done, secondary = false) => {
    const button = h("button", { type: "button", class: secondary ? "secondary" : undefined }, label);
    button.addEventListener("click", act(button, status, async () => {
      await api("POST", `voucher-orders/${id}/${path}`);
      await orderPage(id, null, done); // drawn again in its new state
      return true;
    }));
    buttons.push(button);
  };
  if (order.status === "unpaid") {
    move(fmt(gettext("Pay %(amount)s"), { amount: money(order.voucher.pay_value) }), "pay", gettext("Paid."));
    move(gettext("Cancel"), "cancel", gettext("Cancelled: the voucher is back on offer."), true);
  } else if (order.status === "paid") {
    move(gettext("Refund"), "refund", gettext("Refunded."), true);
  }
  const code = order.redeem_code;
  const readable = code ? code.replace(/(\d{4})(?=\d)/g, "$1 ") : null;
  show(
    h("h1", {}, order.voucher.title),
    h("p", { class: "shop-name" }, h("a", { href: `#/shops/${order.shop.id}` }, order.shop.name)),
    h("p", {}, discountText(order.voucher)),
    h("p", { class: "muted" }, fmt(gettext("Order %(order)s · %(status)s"), { order: order.id, status: couponState(order.status) }),
      validity(order)),
    code && order.status === "paid" ? h("section", { class: "card redeem" },
      h("h2", {}, gettext("Show this at the shop")),
      h("p", { class: "code", "aria-label": gettext("Redeem code") }, readable),
      qrCanvas(code, fmt(gettext("QR code of redeem code %(code)s"), { code: readable })),
      h("p", { class: "muted" }, gettext("Only you can see this code. Staff scan it or type it in to redeem the coupon."))) : null,
    order.status === "paid" ? h("p", {}, h("a", { href: `#/checkout?shop=${order.voucher.shop_id}` }, gettext("Or use it on a bill you pay here"))) : null,
    buttons.length ? h("div", { class: "row" }, buttons) : null,
    status);
}
