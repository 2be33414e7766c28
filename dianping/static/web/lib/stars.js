// A star rating to pick: five tappable stars and "no rating", one row at any width.
//
// The stars are native radio buttons (one name, in a fieldset), so the group has radio
// semantics for free: Tab enters it at the checked one, the arrow keys move the choice,
// Space checks; each says its number of stars to a screen reader. Each input covers its
// star, transparent, so a tap on the star is a tap on the radio button, and the value
// submitted is the same number as before (decision 467).

import { h } from "./dom.js";
import { fmt } from "./format.js";

const starsText = (n) => fmt(ngettext("%(n)s star", "%(n)s stars", n), { n });

export function starPicker({ legend, name = "rating" }) {
  const shown = h("span", { class: "star-value", "aria-hidden": "true" });
  const choice = (n, face) => {
    const label = n ? starsText(n) : gettext("No rating");
    const input = h("input", { type: "radio", name, id: `${name}-${n}`, value: String(n), checked: n === 0, "aria-label": label });
    return h("label", { class: n ? "star" : "no-star", for: `${name}-${n}`, title: label }, input, h("span", { "aria-hidden": n ? "true" : undefined }, face));
  };
  const stars = [1, 2, 3, 4, 5].map((n) => choice(n, "★"));
  const none = choice(0, gettext("No rating"));
  const group = h("fieldset", { class: "star-picker" }, h("legend", {}, legend),
    h("div", { class: "stars-row" }, stars, shown), none);
  const value = () => Number(group.querySelector("input:checked").value) || null;
  const paint = () => {
    const chosen = value() || 0;
    stars.forEach((star, i) => star.classList.toggle("on", i < chosen));
    shown.textContent = chosen ? starsText(chosen) : "";
  };
  group.addEventListener("change", paint);
  paint();
  return { node: group, value };
}
