// The home page: shop types, a search box, "guess you like" for a signed-in reader, the
// chosen city's flash sales on now and coming up (each with its save toggle: the list
// carries the reader's `saved` markers), popular notes (of every city).

import { get } from "../lib/api.js";
import { inCity } from "../lib/city.js";
import { h } from "../lib/dom.js";
import { fmt, money, when } from "../lib/format.js";
import { saveToggle } from "../lib/save.js";
import { app, screen, stillHere } from "../lib/screen.js";
import { session } from "../lib/session.js";
import { blogCard } from "./notes.js";
import { shopCard } from "./shops.js";
import { watchToggle } from "./vouchers.js";

export async function homePage() {
  const show = screen();
  const [types, hot, seizing] = await Promise.all([
    get("shop-types"), get("blogs/hot"),
    inCity({ tab: "seizing" }).then((query) => get(`vouchers/activities?${query}`)).catch(() => []),
  ]);
  const search = h("input", { id: "search", name: "q", type: "search", maxlength: "64" });
  const searchForm = h("form", { role: "search", onsubmit: (event) => {
    event.preventDefault();
    if (search.value.trim()) location.hash = `#/search?q=${encodeURIComponent(search.value.trim())}`;
  } }, h("label", { for: "search" }, gettext("Search shops, notes and people")),
  h("div", { class: "row" }, search, h("button", { type: "submit" }, gettext("Search"))));
  show(
    h("h1", {}, gettext("Discover")),
    searchForm,
    h("nav", { class: "grid", "aria-label": gettext("Shop types") },
      types.map((t) => h("a", { href: `#/shops?type=${t.id}` }, t.name))),
    h("p", {}, h("a", { href: "#/rankings" }, gettext("This week's rankings"))),
    seizing.length ? h("section", {}, h("h2", {}, gettext("Flash sales on now")),
      seizing.map((v) => h("div", { class: "card" },
        h("h3", {}, h("a", { href: `#/shops/${v.shop_id}` }, v.title)),
        h("p", { class: "muted" }, fmt(gettext("%(price)s for %(value)s · %(left)s left"),
          { price: money(v.pay_value), value: money(v.actual_value), left: v.remaining ?? v.stock })),
        saveToggle("voucher", v.id, v.saved)))) : null,
    h("h2", {}, gettext("Popular notes")),
    hot.results.map(blogCard));
  upcomingSales().then((section) => { if (section) app().insertBefore(section, app().querySelector(":scope > h2:last-of-type")); });
  guessYouLike().then((section) => { if (section) app().querySelector(":scope > nav.grid")?.after(section); });
}

// "Guess you like": shops suggested from what the reader saved, rated and liked (popular
// shops near the city centre for a reader with none), never one they rated or saved.
async function guessYouLike() {
  if (!session.token) return null;
  const here = stillHere(); // the home page may be gone by the answer
  const found = await inCity({}).then((query) => get(`recommendations?${query}`)).catch(() => null);
  if (!here() || !found || !found.results.length) return null;
  return h("section", { id: "guess-you-like", "aria-labelledby": "guess-you-like-title" },
    h("h2", { id: "guess-you-like-title" }, gettext("Guess you like")),
    found.results.map((shop) => shopCard(shop)));
}

// Upcoming flash sales, each with a "remind me" toggle for a signed-in reader (a
// notification ten minutes before it starts).
async function upcomingSales() {
  const here = stillHere(); // the home page may be gone by the answer
  const [upcoming, watched] = await Promise.all([
    inCity({ tab: "upcoming" }).then((query) => get(`vouchers/activities?${query}`)).catch(() => []),
    session.token ? get("vouchers/watched").catch(() => ({ voucher_ids: [] })) : { voucher_ids: [] },
  ]);
  if (!here() || !upcoming.length) return null;
  const watching = new Set(watched.voucher_ids);
  return h("section", {}, h("h2", {}, gettext("Flash sales coming up")),
    upcoming.slice(0, 5).map((v) => h("div", { class: "card" },
      h("h3", {}, h("a", { href: `#/shops/${v.shop_id}` }, v.title)),
      h("p", { class: "muted" }, fmt(gettext("Starts %(time)s"), { time: when(v.begin_time) })),
      h("div", { class: "row" }, watchToggle(v.id, watching.has(v.id)), saveToggle("voucher", v.id, v.saved)))));
}
