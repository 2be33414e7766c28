// Search: shops, notes or people matching a query, the matched words marked.

import { act } from "../lib/act.js";
import { ApiError, explain, get } from "../lib/api.js";
import { inCity } from "../lib/city.js";
import { h, marked, message } from "../lib/dom.js";
import { fmt } from "../lib/format.js";
import { screen } from "../lib/screen.js";
import { shopCard } from "./shops.js";

const SEARCH_KINDS = [["shops", () => gettext("Shops")], ["notes", () => gettext("Notes")], ["users", () => gettext("People")]];

export async function searchPage(params) {
  const show = screen();
  const q = (params.get("q") || "").trim();
  const kind = SEARCH_KINDS.some(([key]) => key === params.get("kind")) ? params.get("kind") : "shops";
  const box = h("input", { id: "search", name: "q", type: "search", maxlength: "64", value: q });
  const form = h("form", { role: "search", onsubmit: (event) => {
    event.preventDefault();
    if (box.value.trim()) location.hash = `#/search?q=${encodeURIComponent(box.value.trim())}&kind=${kind}`;
  } }, h("label", { for: "search" }, gettext("Search shops, notes and people")),
  h("div", { class: "row" }, box, h("button", { type: "submit" }, gettext("Search"))));
  const tabs = h("div", { class: "tabs", role: "tablist" }, SEARCH_KINDS.map(([key, label]) =>
    h("button", { type: "button", role: "tab", "aria-selected": String(key === kind),
      onclick: () => { location.hash = `#/search?q=${encodeURIComponent(q)}&kind=${key}`; } }, label())));
  const list = h("div", { role: "tabpanel" });
  const status = h("p", { class: "muted", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  if (!q) { show(h("h1", {}, gettext("Search")), form); return; }
  let page = 1;
  async function load() {
    const data = await get(`search?${await inCity({ q, kind, page })}`);
    if (page === 1) status.textContent = fmt(ngettext("%(count)s result for “%(q)s”.", "%(count)s results for “%(q)s”.", data.count), { count: data.count, q });
    for (const hit of data.results) list.append(searchHit(kind, hit));
    page += 1;
    more.hidden = !data.next;
  }
  more.addEventListener("click", act(more, status, load));
  try {
    await load();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    message(status, explain(error));
  }
  show(h("h1", {}, gettext("Search")), form, tabs, status, list, more);
}

function searchHit(kind, hit) {
  if (kind === "shops") return shopCard(hit, hit.highlight);
  if (kind === "users") {
    return h("article", { class: "card" },
      hit.icon ? h("img", { class: "avatar", src: hit.icon, alt: "" }) : null,
      h("a", { href: `#/users/${hit.id}` }, marked(hit.highlight.nick_name)));
  }
  return h("article", { class: "card" },
    h("h3", {}, h("a", { href: `#/blogs/${hit.id}` }, marked(hit.highlight.title))),
    h("p", { class: "muted" }, h("a", { href: `#/users/${hit.user.id}` }, hit.user.nick_name), ` · ♥ ${hit.liked}`),
    h("p", {}, marked(hit.highlight.content)));
}
