// My favourites: the shops, notes and vouchers one saved, a tab per kind, newest first,
// loaded page by page while scrolling (lib/scroll.js, as the feed).

import { get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { screen } from "../lib/screen.js";
import { infiniteScroll } from "../lib/scroll.js";
import { needLogin } from "../lib/session.js";
import { blogCard } from "./notes.js";
import { shopCard } from "./shops.js";
import { voucherCard } from "./vouchers.js";

// (kind, tab name, what the tab says while empty, the card its item shows)
const TABS = [
  ["shop", gettext("Shops"), gettext("No saved shops yet: tap ☆ Save on a shop to keep it here."), shopCard],
  ["blog", gettext("Notes"), gettext("No saved notes yet."), blogCard],
  ["voucher", gettext("Vouchers"), gettext("No saved vouchers yet. Saving a flash sale reminds you when it starts."), voucherCard],
];

export async function favouritesPage(params) {
  const show = screen();
  if (needLogin()) return;
  const [kind, , empty, card] = TABS.find(([key]) => key === params.get("kind")) || TABS[0];
  const list = h("div", { id: "favourites" });
  let lastId = null;
  const scroll = infiniteScroll(async () => {
    const page = await get(`favourites?kind=${kind}${lastId ? `&last_id=${lastId}` : ""}`);
    list.append(...page.results.map((item) => card(item[kind])));
    lastId = page.last_id;
    return !lastId;
  }, () => (list.children.length ? "" : empty));
  show(h("h1", {}, gettext("My favourites")),
    h("div", { class: "tabs", role: "tablist" }, TABS.map(([key, label]) =>
      h("button", { type: "button", role: "tab", "aria-selected": String(key === kind),
        onclick: () => { location.hash = `#/favourites?kind=${key}`; } }, label))),
    list, ...scroll.nodes);
  scroll.start();
}
