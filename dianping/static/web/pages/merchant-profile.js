// The merchant area's "Profile & hours" (owner only): opening hours, price and phone,
// which apply at once, and the name, address and position, which an operator approves
// first (PATCH /api/merchant/shops/{id}: 200, or 202 with `pending_change`).

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fmt, when } from "../lib/format.js";
import { field, fieldError, withFieldErrors } from "../lib/forms.js";
import { hoursEditor } from "./hours-editor.js";

// A change's proposed fields, for people: "name “…”, position 121.47, 31.23".
function proposalText(proposed) {
  const parts = [];
  if (proposed.name !== undefined) parts.push(fmt(gettext("name “%(name)s”"), { name: proposed.name }));
  if (proposed.address !== undefined) parts.push(fmt(gettext("address “%(address)s”"), { address: proposed.address }));
  if (proposed.x !== undefined) parts.push(fmt(gettext("position %(x)s, %(y)s"), { x: proposed.x, y: proposed.y }));
  return parts.join(gettext(", "));
}

function changeNotes(shop) {
  const notes = [];
  if (shop.pending_change) {
    notes.push(h("p", { class: "message ok", "data-change": "pending" },
      fmt(gettext("Sent for approval on %(time)s: %(change)s. An operator checks it before it changes."),
        { time: when(shop.pending_change.created_at), change: proposalText(shop.pending_change.proposed) })));
  }
  const last = shop.last_decision;
  if (last && last.status === "rejected") {
    notes.push(h("p", { class: "message", "data-change": "rejected" },
      fmt(gettext("Not approved (%(change)s): %(reason)s"), { change: proposalText(last.proposed), reason: last.reason })));
  } else if (last && last.status === "approved" && !shop.pending_change) {
    notes.push(h("p", { class: "muted", "data-change": "approved" },
      fmt(gettext("Approved on %(time)s: %(change)s."), { time: when(last.decided_at), change: proposalText(last.proposed) })));
  }
  return notes;
}

function atOnceForm(shop) {
  const hours = hoursEditor(shop.hours);
  const price = h("input", { name: "avg_price", type: "number", inputmode: "numeric", min: "0", max: "1000000", step: "1", value: String(shop.avg_price ?? "") });
  const phone = h("input", { name: "phone", type: "tel", maxlength: "20", autocomplete: "off", value: shop.phone || "" });
  const status = h("p", { class: "message", role: "status" });
  const save = h("button", { type: "submit" }, gettext("Save hours, price and phone"));
  const form = h("form", { class: "card", "aria-label": gettext("Opening hours, price and phone") },
    h("h2", {}, gettext("Opening hours, price and phone")),
    h("p", { class: "muted" }, gettext("These change at once.")),
    hours.node,
    field("avg_price", gettext("Average spend per person (¥)"), price),
    field("phone", gettext("The shop's phone"), phone, gettext("Digits, spaces and dashes, + first if any; empty removes it.")),
    h("p", {}, save), status);
  form.addEventListener("submit", act(save, status, withFieldErrors(form, status, async () => {
    const body = { phone: phone.value.trim() };
    const withHours = hours.changed();
    if (withHours) body.hours = hours.value();
    if (price.value.trim() !== "") {
      if (!/^\d+$/.test(price.value.trim())) throw fieldError("avg_price", gettext("Whole yuan, such as 88."));
      body.avg_price = Number(price.value);
    }
    await api("PATCH", `merchant/shops/${shop.id}`, body);
    if (withHours) hours.sent();
    message(status, gettext("Saved."), true);
  })));
  return form;
}

function reviewedForm(shop) {
  // Filled with what waits for approval, if anything: sent again, it stays asked for.
  const asked = (shop.pending_change && shop.pending_change.proposed) || {};
  const value = (name) => String(asked[name] ?? shop[name]);
  const name = h("input", { name: "name", maxlength: "128", required: true, value: value("name") });
  const address = h("input", { name: "address", maxlength: "255", required: true, value: value("address") });
  const x = h("input", { name: "x", type: "number", step: "any", min: "-180", max: "180", value: value("x") });
  const y = h("input", { name: "y", type: "number", step: "any", min: "-85.05112878", max: "85.05112878", value: value("y") });
  const notes = h("div", {}, changeNotes(shop));
  const status = h("p", { class: "message", role: "status" });
  const send = h("button", { type: "submit" }, gettext("Send for approval"));
  const form = h("form", { class: "card", "aria-label": gettext("Name, address and position") },
    h("h2", {}, gettext("Name, address and position")),
    h("p", { class: "muted" }, gettext("An operator checks these before they change: customers see the shop as it is until then.")),
    notes,
    field("name", gettext("Name"), name),
    field("address", gettext("Address"), address),
    h("div", { class: "row" },
      field("x", gettext("Longitude"), x), field("y", gettext("Latitude"), y)),
    h("p", {}, send), status);
  form.addEventListener("submit", act(send, status, withFieldErrors(form, status, async () => {
    const before = shop.pending_change && shop.pending_change.id;
    if (x.value.trim() === "" || y.value.trim() === "") throw fieldError("x", gettext("Give both the longitude and the latitude."));
    const body = { name: name.value.trim(), address: address.value.trim(), x: Number(x.value), y: Number(y.value) };
    const saved = await api("PATCH", `merchant/shops/${shop.id}`, body);
    notes.replaceChildren(...changeNotes(saved));
    const sent = saved.pending_change && saved.pending_change.id !== before;
    message(status, sent ? gettext("Sent for approval.") : gettext("Nothing to send: these are the shop's own or already asked for."), sent);
    Object.assign(shop, saved);
  })));
  return form;
}

export async function profileSection(shopId) {
  const shop = await get(`merchant/shops/${shopId}`);
  return [atOnceForm(shop), reviewedForm(shop)];
}
