// The merchant area's "Offers" (owner only): the shop's proposed vouchers with their
// state (a sent back one with the operator's reason, a published flash sale with its units
// left), a form to draft or edit a coupon or a flash sale with the staff API's fields, and
// the moves the state allows: submit a draft, stop a published sale.

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fenOf, fmt, money, named, serverInput, serverIso, when, yuan } from "../lib/format.js";
import { field, fieldError, withFieldErrors } from "../lib/forms.js";
import { discountText } from "./vouchers.js";

const STATES = {
  draft: gettext("Draft"),
  submitted: gettext("Waiting for an operator"),
  returned: gettext("Sent back"),
  published: gettext("Published"),
  stopped: gettext("Stopped"),
};
const KINDS = { normal: gettext("Coupon"), seckill: gettext("Flash sale") };
const EDITABLE = ["draft", "returned"];

// The form's fields, each in the API's name. Money is typed in yuan and sent in fen.
const MONEY = ["pay_value", "actual_value", "amount_condition", "discount_amount", "max_discount"];

function offerForm(shopId, offer, onSaved, onCancel) {
  const v = (offer && offer.voucher) || {};
  const input = (name, attrs = {}) => h("input", { name, ...attrs });
  const choice = (name, options, value) => h("select", { name },
    Object.entries(options).map(([key, label]) => h("option", { value: key, selected: key === value }, label)));
  const moneyInput = (name, value) => input(name, { inputmode: "decimal", value: yuan(value), placeholder: "0" });
  const count = (name, value, attrs = {}) => input(name, { type: "number", inputmode: "numeric", min: "1", step: "1", value: value ?? "", ...attrs });
  const els = {
    type: choice("type", KINDS, v.type || "seckill"),
    title: input("title", { maxlength: "255", required: true, value: v.title || "" }),
    sub_title: input("sub_title", { maxlength: "255", value: v.sub_title || "" }),
    rules: h("textarea", { name: "rules", maxlength: "2000", rows: "3" }, v.rules || ""),
    pay_value: moneyInput("pay_value", v.pay_value),
    actual_value: moneyInput("actual_value", v.actual_value),
    discount_type: choice("discount_type", {
      cash: gettext("Cash: its face value off"),
      full_reduction: gettext("Spend and save: an amount off a bill from a threshold"),
      percentage: gettext("Percentage: a share of a bill from a threshold"),
    }, v.discount_type || "cash"),
    amount_condition: moneyInput("amount_condition", v.amount_condition || null),
    discount_amount: moneyInput("discount_amount", v.discount_amount),
    discount_rate: count("discount_rate", v.discount_rate, { max: "99" }),
    max_discount: moneyInput("max_discount", v.max_discount),
    stock: count("stock", v.stock, { min: "0" }),
    per_user_limit: count("per_user_limit", v.per_user_limit ?? 1, { max: "100" }),
    begin_time: input("begin_time", { type: "datetime-local", value: serverInput(v.begin_time) }),
    end_time: input("end_time", { type: "datetime-local", value: serverInput(v.end_time) }),
    valid_days: count("valid_days", v.valid_days ?? 30, { max: "3650" }),
  };
  const rows = {
    type: field("type", gettext("Kind"), els.type),
    title: field("title", gettext("Title"), els.title, gettext("Such as “¥100 for ¥59”.")),
    sub_title: field("sub_title", gettext("Subtitle"), els.sub_title),
    rules: field("rules", gettext("Rules"), els.rules),
    pay_value: field("pay_value", gettext("Price (¥)"), els.pay_value, gettext("What a buyer pays; 0 for a free coupon.")),
    actual_value: field("actual_value", gettext("Face value (¥)"), els.actual_value),
    discount_type: field("discount_type", gettext("Discount"), els.discount_type),
    amount_condition: field("amount_condition", gettext("Bills from (¥)"), els.amount_condition),
    discount_amount: field("discount_amount", gettext("Amount off (¥)"), els.discount_amount),
    discount_rate: field("discount_rate", gettext("Pay this percent of the bill (1–99)"), els.discount_rate, gettext("85 takes 15 percent off.")),
    max_discount: field("max_discount", gettext("At most off (¥, optional)"), els.max_discount),
    stock: field("stock", gettext("Stock (units)"), els.stock),
    per_user_limit: field("per_user_limit", gettext("Coupons one user may hold"), els.per_user_limit),
    begin_time: field("begin_time", gettext("Sale starts"), els.begin_time),
    end_time: field("end_time", gettext("Sale ends"), els.end_time),
    valid_days: field("valid_days", gettext("Days a coupon stays usable"), els.valid_days),
  };
  const stockHint = h("p", { class: "muted hint" });
  rows.stock.insertBefore(stockHint, rows.stock.querySelector(".field-error"));

  // What the kind and the discount rule take: the rest is hidden and sent empty.
  function shape() {
    const sale = els.type.value === "seckill";
    const rule = els.discount_type.value;
    rows.per_user_limit.hidden = sale;
    rows.amount_condition.hidden = rule === "cash";
    rows.discount_amount.hidden = rule !== "full_reduction";
    rows.discount_rate.hidden = rows.max_discount.hidden = rule !== "percentage";
    stockHint.textContent = sale ? gettext("The units on sale.") : gettext("Empty: unlimited.");
    els.stock.required = els.begin_time.required = els.end_time.required = sale;
  }
  els.type.addEventListener("change", shape);
  els.discount_type.addEventListener("change", shape);
  shape();

  function body() {
    const sale = els.type.value === "seckill";
    const rule = els.discount_type.value;
    const text = (name) => els[name].value.trim();
    const fenField = (name, optional) => {
      if (optional && !text(name)) return null;
      const fen = fenOf(text(name));
      if (Number.isNaN(fen)) throw fieldError(name, gettext("An amount in yuan, such as 59 or 59.5."));
      return fen;
    };
    const number = (name) => (text(name) === "" ? null : Number(text(name)));
    return {
      type: els.type.value, title: text("title"), sub_title: text("sub_title"), rules: els.rules.value.trim(),
      pay_value: fenField("pay_value"), actual_value: fenField("actual_value"), discount_type: rule,
      amount_condition: rule === "cash" ? 0 : fenField("amount_condition", true) || 0,
      discount_amount: rule === "full_reduction" ? fenField("discount_amount") : null,
      discount_rate: rule === "percentage" ? number("discount_rate") : null,
      max_discount: rule === "percentage" ? fenField("max_discount", true) : null,
      stock: number("stock"),
      per_user_limit: sale ? 1 : number("per_user_limit") || 1,
      begin_time: serverIso(els.begin_time.value) || null,
      end_time: serverIso(els.end_time.value) || null,
      valid_days: number("valid_days") || 30,
    };
  }

  const status = h("p", { class: "message", role: "status" });
  const save = h("button", { type: "submit" }, offer ? gettext("Save changes") : gettext("Save the draft"));
  const cancel = onCancel ? h("button", { type: "button", class: "secondary", onclick: onCancel }, pgettext("form", "Cancel")) : null;
  const form = h("form", { class: "offer-form", "aria-label": offer ? gettext("Edit the offer") : gettext("New offer") },
    Object.values(rows), h("div", { class: "row" }, save, cancel), status);
  form.addEventListener("submit", act(save, status, withFieldErrors(form, status, async () => {
    const sent = body();
    const saved = offer
      ? await api("PATCH", `merchant/shops/${shopId}/offers/${offer.id}`, sent)
      : await api("POST", `merchant/shops/${shopId}/offers`, sent);
    await onSaved(saved);
  })));
  return form;
}

function offerCard(offer, reload) {
  const v = offer.voucher;
  const status = h("p", { class: "message", role: "status" });
  const card = h("article", { class: "card offer", "data-offer": String(offer.id), "data-state": offer.state });
  const price = v.pay_value ? money(v.pay_value) : gettext("Free");
  const facts = [named(KINDS, v.type), price, discountText(v)];
  if (v.type === "seckill") facts.push(fmt(gettext("%(from)s to %(to)s"), { from: when(v.begin_time), to: when(v.end_time) }));
  const stock = v.type === "seckill" || v.stock !== null
    ? (offer.remaining !== null && offer.remaining !== undefined
      ? fmt(gettext("%(left)s left"), { left: offer.remaining })
      : fmt(gettext("Stock %(stock)s"), { stock: v.stock }))
    : gettext("Unlimited");
  const actions = h("div", { class: "row" });
  if (EDITABLE.includes(offer.state)) {
    const edit = h("button", { type: "button", class: "secondary" }, gettext("Edit"));
    edit.addEventListener("click", () => {
      card.replaceChildren(h("h3", {}, v.title), offerForm(offer.shop_id, offer, () => reload(gettext("Changes saved."), offer.id), () => reload()));
      card.querySelector("input[name=title]").focus();
    });
    const submit = h("button", { type: "button" }, gettext("Submit for review"));
    submit.addEventListener("click", act(submit, status, async () => {
      await api("POST", `merchant/shops/${offer.shop_id}/offers/${offer.id}/submit`);
      await reload(gettext("Submitted: an operator reviews it."), offer.id);
    }));
    actions.append(edit, submit);
  } else if (offer.state === "published") {
    const stop = h("button", { type: "button", class: "secondary" }, gettext("Stop the sale"));
    stop.addEventListener("click", act(stop, status, async () => {
      if (!window.confirm(fmt(gettext("Stop “%(title)s” now? Nobody can get it afterwards; the coupons already sold stay valid."), { title: v.title }))) return;
      await api("POST", `merchant/shops/${offer.shop_id}/offers/${offer.id}/stop`);
      await reload(gettext("The sale was stopped."), offer.id);
    }));
    actions.append(stop);
  }
  card.append(...[
    h("h3", {}, v.title, " ", h("span", { class: `state ${offer.state}` }, named(STATES, offer.state))),
    h("p", {}, facts.join(" · ")),
    h("p", { class: "muted" }, stock, " · ",
      fmt(gettext("updated %(time)s"), { time: when(offer.updated_at) }),
      offer.voucher_id ? [" · ", h("a", { href: `#/shops/${offer.shop_id}` }, gettext("On the shop's page"))] : null),
    offer.state === "returned" && offer.reason
      ? h("p", { class: "message", "data-reason": "" }, fmt(gettext("Sent back: %(reason)s"), { reason: offer.reason })) : null,
    actions, status].filter(Boolean));
  return card;
}

export async function offersSection(shopId) {
  const list = h("div", { class: "offers" });
  const listStatus = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  let page = 1;

  async function load(reset) {
    if (reset) page = 1;
    const data = await get(`merchant/shops/${shopId}/offers?page=${page}`);
    if (reset) list.replaceChildren();
    list.append(...data.results.map((offer) => offerCard(offer, reload)));
    if (reset && !data.results.length) list.append(h("p", { class: "muted" }, gettext("No offers yet: draft the first one above.")));
    page += 1;
    more.hidden = !data.next;
  }
  // After a move: the list again from the top, and what happened under the offer moved.
  async function reload(text, offerId) {
    await load(true);
    const card = offerId && list.querySelector(`[data-offer="${offerId}"] [role=status]`);
    if (card && text) message(card, text, true);
  }
  more.addEventListener("click", act(more, listStatus, () => load(false)));

  const draft = h("details", { class: "card" }, h("summary", {}, gettext("Draft a new offer")));
  function freshForm() {
    const form = offerForm(shopId, null, async (saved) => {
      draft.open = false;
      form.replaceWith(freshForm());
      await reload(gettext("Draft saved: submit it when it is ready."), saved.id);
    });
    return form;
  }
  draft.append(freshForm());
  await load(true);
  return [
    h("p", { class: "muted" }, gettext("An operator reviews every offer before it goes on sale.")),
    draft, h("h2", {}, gettext("Offers")), list, more, listStatus,
  ];
}
