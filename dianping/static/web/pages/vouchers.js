// Vouchers on offer: a shop's voucher cards (grab a flash sale, get an everyday voucher,
// save either), what a coupon takes off, and the "remind me" toggle of an upcoming sale.

import { act } from "../lib/act.js";
import { ApiError, api } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fmt, money, when } from "../lib/format.js";
import { saveToggle } from "../lib/save.js";
import { needLogin, session } from "../lib/session.js";

export function discountText(voucher) {
  // What a coupon takes off, in the words of its discount rule.
  const from = voucher.amount_condition
    ? fmt(gettext(" on bills from %(amount)s"), { amount: money(voucher.amount_condition) }) : "";
  if (voucher.discount_type === "full_reduction") {
    return fmt(gettext("%(amount)s off%(condition)s"), { amount: money(voucher.discount_amount), condition: from });
  }
  if (voucher.discount_type === "percentage") {
    const cap = voucher.max_discount ? fmt(gettext(", at most %(amount)s off"), { amount: money(voucher.max_discount) }) : "";
    // A rate of 85 is "15% off" in English and "8.5折" in Chinese: each language says it its way.
    return fmt(gettext("%(percent)s off%(condition)s%(cap)s"),
      { percent: `${100 - voucher.discount_rate}%`, rate: voucher.discount_rate / 10, condition: from, cap });
  }
  return fmt(gettext("%(amount)s off"), { amount: money(voucher.actual_value) });
}

const leftText = (left) => fmt(gettext("%(left)s left"), { left });

// "Remind me" of an upcoming sale, for a signed-in reader: a notification ten minutes
// before it starts.
export function watchToggle(voucherId, initially) {
  let on = initially;
  const status = h("span", { class: "message", role: "status" });
  const button = h("button", { type: "button", class: "secondary", "aria-pressed": String(on) });
  const label = () => {
    button.textContent = on ? gettext("Reminder set") : gettext("Remind me");
    button.setAttribute("aria-pressed", String(on));
  };
  label();
  button.addEventListener("click", act(button, status, async () => {
    if (!session.token) { needLogin(); return false; }
    const result = await api(on ? "DELETE" : "PUT", `vouchers/${voucherId}/watch`);
    on = result.watching;
    label();
    return false;
  }));
  return h("div", { class: "row" }, button, status);
}

const PREFETCH_S = 30; // a sale's challenge is fetched this long before it opens

function countdown(el, beginIso, done, soon) {
  let warned = false;
  const tick = () => {
    const left = Math.max(0, Math.round((new Date(beginIso) - Date.now()) / 1000));
    el.textContent = fmt(gettext("Starts in %(h)sh %(m)sm %(s)ss"),
      { h: Math.floor(left / 3600), m: Math.floor(left / 60) % 60, s: left % 60 });
    if (soon && !warned && left <= PREFETCH_S) { warned = true; soon(); }
    if (left === 0) { clearInterval(timer); done(); }
  };
  const timer = setInterval(() => (el.isConnected ? tick() : clearInterval(timer)), 1000);
  tick();
}

export function voucherCard(voucher) {
  const status = h("p", { class: "message", role: "status" });
  const price = voucher.pay_value ? money(voucher.pay_value) : gettext("Free");
  const card = h("article", { class: "card" },
    h("h3", {}, voucher.title),
    h("p", {}, `${price} · ${discountText(voucher)}`, voucher.sub_title ? ` · ${voucher.sub_title}` : ""),
    saveToggle("voucher", voucher.id, voucher.saved, (state) => {
      // Saving a sale not yet started sets its reminder (the server's watch).
      if (state.saved && voucher.status === "pending") message(status, gettext("Saved: you will be reminded before it starts."), true);
    }));
  if (voucher.type !== "seckill") return claimable(card, voucher, status);
  let left = voucher.remaining ?? voucher.stock;
  const stock = h("span", {}, leftText(left));
  const grab = h("button", { type: "button" }, gettext("Grab"));
  const challenge = voucher.challenge ? challengeBox(voucher.id) : null;
  grab.addEventListener("click", act(grab, status, async () => {
    if (needLogin()) return;
    if (challenge && !challenge.ready()) {
      // The question first: shown now, answered before the grab is sent.
      await challenge.load();
      message(status, gettext("Answer the question in the picture, then press Grab."));
      return;
    }
    let result;
    try {
      result = await api("POST", `vouchers/${voucher.id}/seckill`, challenge ? { challenge: challenge.answer() } : undefined);
    } catch (error) {
      if (!(challenge && error instanceof ApiError && String(error.code).startsWith("challenge_"))) throw error;
      await challenge.load(); // each question is answered once: a new one to try again
      message(status, error.code === "challenge_wrong"
        ? gettext("Wrong answer: here is a new question.")
        : gettext("That question has expired: here is a new one."));
      return;
    }
    if (challenge) challenge.done();
    const next = fmt(gettext("Got it! Order %(order)s. Pay for it in My vouchers."), { order: result.order_id });
    status.replaceChildren(`${next} `, h("a", { href: `#/orders/${result.order_id}` }, gettext("Pay now")));
    status.className = "message ok";
    left = Math.max(0, left - 1);
    stock.textContent = leftText(left);
  }));
  const info = h("p", { class: "muted" }, stock, fmt(gettext(" · ends %(time)s"), { time: when(voucher.end_time) }));
  card.append(info);
  if (voucher.status === "pending") {
    const clock = h("p", { class: "muted" });
    grab.disabled = true;
    const soon = challenge ? () => { if (session.token) challenge.load().catch(() => {}); } : null;
    countdown(clock, voucher.begin_time, () => { grab.disabled = false; }, soon);
    card.append(clock);
  } else if (voucher.status !== "active") {
    grab.disabled = true;
    message(status, gettext("This sale has ended."));
  }
  if (challenge) card.append(challenge.box);
  card.append(h("div", { class: "row" }, grab), status);
  return card;
}

function challengeBox(voucherId) {
  // A sale's challenge: its question as a picture and a field for the answer, hidden
  // until fetched (when Grab is first pressed, or shortly before the sale opens).
  const img = h("img", { class: "challenge-image", alt: gettext("Challenge question"), width: 180, height: 56 });
  const input = h("input", { type: "text", inputmode: "numeric", autocomplete: "off", size: 6, "aria-label": gettext("Your answer") });
  const another = h("button", { type: "button", class: "link" }, gettext("Another question"));
  const box = h("div", { class: "row challenge", hidden: true }, img, input, another);
  let current = null;
  const load = async () => {
    const data = await api("GET", `vouchers/${voucherId}/challenge`);
    current = data.id;
    img.src = data.image;
    input.value = "";
    box.hidden = false;
    input.focus();
  };
  another.addEventListener("click", () => { load().catch(() => {}); });
  return {
    box,
    load,
    ready: () => current !== null && input.value.trim() !== "",
    answer: () => { const sent = { id: current, answer: input.value.trim() }; current = null; return sent; },
    done: () => { box.hidden = true; },
  };
}

function claimable(card, voucher, status) {
  // An everyday voucher: taken with "Get", free ones ready at once, priced ones to pay.
  if (voucher.remaining !== null && voucher.remaining !== undefined) {
    card.append(h("p", { class: "muted" }, leftText(voucher.remaining)));
  }
  const get = h("button", { type: "button" }, gettext("Get"));
  get.addEventListener("click", act(get, status, async () => {
    if (needLogin()) return;
    const result = await api("POST", `vouchers/${voucher.id}/claim`);
    const next = voucher.pay_value ? gettext("Got it! Pay for it in My vouchers.") : gettext("Got it! It is in My vouchers.");
    status.replaceChildren(`${next} `, h("a", { href: `#/orders/${result.order_id}` }, gettext("Show it")));
    status.className = "message ok";
  }));
  card.append(h("div", { class: "row" }, get), status);
  return card;
}
