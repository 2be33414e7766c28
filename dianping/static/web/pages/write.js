// Writing a note, or a review of a shop with its star rating, with photos.

import { act } from "../lib/act.js";
import { ApiError, api, get, idempotencyKey } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { fmt } from "../lib/format.js";
import { picturePicker } from "../lib/pictures.js";
import { screen } from "../lib/screen.js";
import { needLogin } from "../lib/session.js";
import { starPicker } from "../lib/stars.js";
import { SUB_SCORES } from "./notes.js";

// Optional taste, environment and service stars beside the rating, one select each.
function subScorePickers() {
  const selects = SUB_SCORES.map(([name, label]) => {
    const select = h("select", { id: `score-${name}`, name },
      h("option", { value: "" }, gettext("Not rated")),
      [5, 4, 3, 2, 1].map((n) => h("option", { value: String(n) }, fmt(ngettext("%(n)s star", "%(n)s stars", n), { n }))));
    return [name, h("div", { class: "filter" }, h("label", { for: `score-${name}` }, label()), select), select];
  });
  const group = h("fieldset", { class: "sub-score-picker" }, h("legend", {}, gettext("Taste, environment and service (optional)")),
    h("div", { class: "row" }, selects.map(([, field]) => field)));
  const values = () => Object.fromEntries(selects.map(([name, , select]) => [name, Number(select.value) || null]));
  return { node: group, values };
}

export async function writePage(params) {
  const show = screen();
  if (needLogin()) return;
  const shopId = params.get("shop");
  const shop = shopId ? await get(`shops/${encodeURIComponent(shopId)}`) : null;
  const rating = shop ? starPicker({ legend: gettext("Your rating") }) : null;
  const aspects = shop ? subScorePickers() : null;
  const title = h("input", { id: "title", name: "title", maxlength: "128", required: true });
  const content = h("textarea", { id: "content", name: "content", maxlength: "5000", required: true });
  const photos = picturePicker({ id: "photos", label: gettext("Photos (up to 9)"), multiple: true, max: 9 });
  const status = h("p", { class: "message", role: "status" });
  const publish = h("button", { type: "submit" }, gettext("Publish"));
  // One key per note being written: a retry after a lost answer publishes it once.
  const key = idempotencyKey();
  show(h("h1", {}, shop ? fmt(gettext("Review %(shop)s"), { shop: shop.name }) : gettext("Write a note")), h("form", { onsubmit: act(publish, status, async () => {
    if (photos.busy()) throw new ApiError(0, { detail: gettext("Wait until your photos are uploaded.") });
    const body = { title: title.value, content: content.value, images: photos.pictures() };
    if (shop) Object.assign(body, { shop_id: shop.id, rating: rating.value(), ...aspects.values() });
    const blog = await api("POST", "blogs", body, { "Idempotency-Key": key });
    location.hash = `#/blogs/${blog.id}`;
    return true; // published: leaving the page, never twice
  }) },
  h("label", { for: "title" }, gettext("Title")), title,
  h("label", { for: "content" }, gettext("What was it like?")), content,
  rating ? rating.node : null,
  aspects ? aspects.node : null,
  ...photos.nodes,
  h("p", {}, publish)), status);
}
