// The save toggle on shop, note and voucher cards and pages: ☆ Save / ★ Saved, kept in
// "My favourites" (#/favourites). Both ways are idempotent on the server, so a double
// tap or a retry never leaves the wrong state.

import { act } from "./act.js";
import { api } from "./api.js";
import { h } from "./dom.js";
import { fmt } from "./format.js";
import { needLogin } from "./session.js";

// `onChange(state)` hears the server's answer: { saved, favourites } (the count of a shop
// or a note; null for a voucher).
export function saveToggle(kind, id, initially, onChange = () => {}) {
  let saved = Boolean(initially);
  // Announced, but not a role="status" of its own: a card's status line (a grab's, a
  // claim's) stays the card's one status, and a page's its own.
  const status = h("span", { class: "message", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "secondary save" });
  const label = () => {
    button.textContent = saved ? gettext("★ Saved") : gettext("☆ Save");
    button.setAttribute("aria-pressed", String(saved));
  };
  label();
  button.addEventListener("click", act(button, status, async () => {
    if (needLogin()) return;
    const state = await api(saved ? "DELETE" : "PUT", `favourites/${kind}/${id}`);
    saved = state.saved;
    label();
    onChange(state);
  }));
  return h("span", { class: "save-toggle" }, button, status);
}

// How many people saved a shop or a note.
export const favouritesText = (n) => fmt(ngettext("%(count)s save", "%(count)s saves", n), { count: n });
