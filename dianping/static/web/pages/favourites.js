// My favourites: the shops, notes and vouchers one saved, a tab per kind, newest first,
// loaded page by page while scrolling (as the feed).

import { explain, get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { screen } from "../lib/screen.js";
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
  const end = h("p", { class: "muted", role: "status" });
  const retry = h("button", { type: "button", hidden: true, onclick: () => { retry.hidden = true; more(); } }, gettext("Try again"));
  const sentinel = h("div", { "aria-hidden": "true" });
  let lastId = null;
  let loading = false;
  let finished = false;
  // Load the next page when the sentinel under the list comes within 300 px of view.
  const observer = new IntersectionObserver((entries) => {
    if (!sentinel.isConnected) { observer.disconnect(); return; }
    if (entries.some((e) => e.isIntersecting)) more();
  }, { rootMargin: "0px 0px 300px 0px" });
  async function more() {
    if (loading || finished) return;
    loading = true;
    try {
      const page = await get(`favourites?kind=${kind}${lastId ? `&last_id=${lastId}` : ""}`);
      list.append(...page.results.map((item) => card(item[kind])));
      lastId = page.last_id;
      if (!lastId) {
        finished = true;
        observer.disconnect();
        end.textContent = list.children.length ? "" : empty;
        return;
      }
    } catch (error) {
      end.textContent = explain(error);
      retry.hidden = false;
      return;
    } finally {
      loading = false;
    }
    // Observe afresh: a new observation reports at once whether the sentinel is in view.
    observer.unobserve(sentinel);
    observer.observe(sentinel);
  }
  show(h("h1", {}, gettext("My favourites")),
    h("div", { class: "tabs", role: "tablist" }, TABS.map(([key, label]) =>
      h("button", { type: "button", role: "tab", "aria-selected": String(key === kind),
        onclick: () => { location.hash = `#/favourites?kind=${key}`; } }, label))),
    list, sentinel, end, retry);
  observer.observe(sentinel); // its first report loads the first page
}
