// Shops: the chosen city's list of a type near a point (with filters and sorts), a shop's
// page with its vouchers, neighbours and reviews, and the shop card that search and
// favourites show too.

import { act } from "../lib/act.js";
import { api, explain, get } from "../lib/api.js";
import { currentCity, inCity } from "../lib/city.js";
import { h, marked, message } from "../lib/dom.js";
import { fmt } from "../lib/format.js";
import { helpfulButton } from "../lib/helpful.js";
import { rankBadge } from "../lib/rank.js";
import { favouritesText, saveToggle } from "../lib/save.js";
import { screen } from "../lib/screen.js";
import { claimSection } from "./claims.js";
import { SUB_SCORES, blogCard } from "./notes.js";
import { canReplyAt, replySection } from "./replies.js";
import { voucherCard } from "./vouchers.js";

// A shop's score (rating x10) as stars and a number; "no ratings yet" before the first.
function scoreText(score) {
  return score ? fmt(gettext("★ %(score)s"), { score: (score / 10).toFixed(1) }) : gettext("No ratings yet");
}

// Open now or closed, by the shop's opening hours at the time of the request; nothing for a
// shop without structured hours (open_now null) or a document from before there were any.
function openNowBadge(shop) {
  if (typeof shop.open_now !== "boolean") return null;
  return [" ", h("span", { class: shop.open_now ? "open-now" : "open-now closed" },
    shop.open_now ? gettext("Open now") : gettext("Closed"))];
}

// The shop list's filters, as the API names them; the sorts each filter form offers.
const SHOP_FILTERS = ["area", "price_min", "price_max", "score_min", "sort"];

function shopFilters(initial, onApply) {
  const field = (name, label, input) => h("div", { class: "filter" }, h("label", { for: `filter-${name}` }, label), input);
  const number = (name, max) => h("input", { id: `filter-${name}`, name, type: "number", inputmode: "numeric", min: "0", max: String(max), value: initial[name] || "" });
  const choice = (name, options) => h("select", { id: `filter-${name}`, name },
    options.map(([value, label]) => h("option", { value, selected: (initial[name] || "") === value }, label)));
  const status = h("p", { class: "message", role: "status" });
  const form = h("form", { class: "filters", "aria-label": gettext("Filters"), onsubmit: (event) => {
    event.preventDefault();
    const values = {};
    for (const name of SHOP_FILTERS) {
      const value = form.elements[name].value.trim();
      if (value) values[name] = name === "score_min" ? String(Math.round(Number(value) * 10)) : value;
    }
    if (values.price_min && values.price_max && Number(values.price_min) > Number(values.price_max)) {
      message(status, gettext("The lowest price cannot be above the highest."));
      return;
    }
    message(status, "");
    onApply(values);
  } },
  h("div", { class: "row" },
    field("area", gettext("District"), h("input", { id: "filter-area", name: "area", maxlength: "64", value: initial.area || "", placeholder: gettext("e.g. 人民广场") })),
    field("price_min", gettext("Price from (¥)"), number("price_min", 1000000)),
    field("price_max", gettext("Price up to (¥)"), number("price_max", 1000000)),
    field("score_min", gettext("Score at least"), choice("score_min", [["", gettext("Any")], ["3", "★ 3.0"], ["3.5", "★ 3.5"], ["4", "★ 4.0"], ["4.5", "★ 4.5"]])),
    field("sort", gettext("Sort by"), choice("sort", [["", gettext("Default")], ["score", gettext("Best rated")], ["popular", gettext("Most popular")]]))),
  h("p", {}, h("button", { type: "submit", class: "secondary" }, gettext("Apply filters"))), status);
  return form;
}

export async function shopsPage(params) {
  const show = screen();
  const typeId = params.get("type");
  const name = params.get("name");
  if (!typeId && !name) { location.hash = "#/"; return; }
  const list = h("div");
  const status = h("p", { class: "muted", role: "status" },
    name ? fmt(gettext("Shops matching “%(name)s”."), { name }) : gettext("Showing shops near the city centre."));
  let page = 1;
  const city = await currentCity();
  let point = { x: city.x, y: city.y }; // the chosen city's centre, until the reader's location
  let filters = {};
  let openOnly = false;
  let generation = 0; // a reload (new location) makes answers of older loads stale
  const more = h("button", { type: "button", class: "secondary" }, gettext("More"));
  async function load(reset) {
    if (reset) { generation += 1; page = 1; list.replaceChildren(); }
    const mine = generation;
    const query = await inCity(name ? { name } : { type_id: typeId, x: point.x, y: point.y });
    for (const [key, value] of Object.entries(filters)) query.set(key, value);
    if (openOnly) query.set("open_now", "true");
    query.set("page", page);
    const data = await get(`shops?${query}`);
    if (mine !== generation) return;
    for (const shop of data.results) list.append(shopCard(shop));
    if (!data.results.length && page === 1) {
      list.append(h("p", {}, Object.keys(filters).length || openOnly ? gettext("No shop matches these filters.")
        : name ? gettext("No shop has that name.") : gettext("No shops of this type within 5 km.")));
    }
    page += 1;
    more.hidden = !data.next;
  }
  more.addEventListener("click", act(more, status, () => load(false)));
  const locate = h("button", { type: "button", class: "secondary", hidden: Boolean(name), onclick: () => {
    if (!navigator.geolocation) { status.textContent = gettext("Location is not available; using the city centre."); return; }
    navigator.geolocation.getCurrentPosition(
      (pos) => {
        point = { x: pos.coords.longitude, y: pos.coords.latitude };
        status.textContent = gettext("Showing shops near you.");
        load(true).catch((error) => message(status, explain(error)));
      },
      () => { status.textContent = gettext("Location was refused; using the city centre."); },
      { timeout: 5000 });
  } }, gettext("Use my location"));
  const openToggle = h("label", { class: "choice" },
    h("input", { type: "checkbox", name: "open_now", onchange: (event) => {
      openOnly = event.target.checked;
      load(true).catch((error) => message(status, explain(error)));
    } }), gettext("Open now only"));
  const form = shopFilters({}, (values) => {
    filters = values;
    load(true).catch((error) => message(status, explain(error)));
  });
  show(h("h1", {}, name ? gettext("Search") : gettext("Shops nearby")), h("div", { class: "row" }, locate, openToggle),
    h("details", { class: "card" }, h("summary", {}, gettext("Filter and sort")), form), status, list, more);
  await load(true);
}

export function shopCard(shop, highlight) {
  return h("article", { class: "card shop" },
    shop.images.length ? h("img", { class: "thumb", src: shop.images[0], alt: "", loading: "lazy" }) : null,
    h("h3", {}, h("a", { href: `#/shops/${shop.id}` }, highlight ? marked(highlight.name) : shop.name)),
    h("p", { class: "muted" }, highlight ? [marked(highlight.area), " · ", marked(highlight.address)] : `${shop.area} · ${shop.address}`),
    h("p", {}, fmt(gettext("¥%(price)s/person · %(score)s"), { price: shop.avg_price, score: scoreText(shop.score) }),
      shop.distance === undefined ? "" : fmt(gettext(" · %(metres)s m"), { metres: Math.round(shop.distance) }),
      openNowBadge(shop)),
    shop.rank ? h("p", {}, rankBadge(shop)) : null,
    saveToggle("shop", shop.id, shop.saved));
}

// How many ratings gave each number of stars, 5 down to 1, as bars.
function histogram(shop) {
  const ratings = shop.ratings || [0, 0, 0, 0, 0]; // a document cached before ratings existed
  const total = ratings.reduce((a, b) => a + b, 0);
  return h("dl", { class: "histogram", "aria-label": gettext("Ratings") }, [5, 4, 3, 2, 1].map((n) => {
    const count = ratings[n - 1];
    return h("div", { class: "bar" },
      h("dt", {}, fmt(ngettext("%(n)s star", "%(n)s stars", n), { n })),
      h("dd", {}, h("meter", { min: "0", max: String(total || 1), value: String(count) }), ` ${count}`));
  }));
}

// The shop's average taste, environment and service (x10, as its score), each with how
// many ratings gave one; nothing before any review gave one (or from an older document).
function subScores(shop) {
  const averages = shop.sub_scores || {};
  const counts = shop.sub_score_counts || {};
  if (!SUB_SCORES.some(([name]) => averages[name])) return null;
  return h("dl", { class: "sub-scores", "aria-label": gettext("Scores by aspect") }, SUB_SCORES.map(([name, label]) =>
    h("div", {}, h("dt", {}, label()), h("dd", {}, averages[name]
      ? fmt(ngettext("%(score)s (%(count)s rating)", "%(score)s (%(count)s ratings)", counts[name]),
        { score: (averages[name] / 10).toFixed(1), count: counts[name] })
      : "—"))));
}

// Toggle buttons: `choices` [value, label]; pressing one presses it alone (or, with
// `optional`, pressing the pressed one clears it); `onPick(value or null)` loads again.
function toggles(label, choices, initial, status, onPick, optional = false) {
  const group = h("div", { class: "row chips", role: "group", "aria-label": label });
  let current = initial;
  for (const [value, text] of choices) {
    const button = h("button", { type: "button", class: "secondary", "aria-pressed": String(value === current) }, text);
    button.addEventListener("click", act(button, status, async () => {
      current = optional && value === current ? null : value;
      for (const [i, other] of [...group.children].entries()) other.setAttribute("aria-pressed", String(choices[i][0] === current));
      await onPick(current);
    }));
    group.append(button);
  }
  return group;
}

// A shop's reviews, newest, most liked or most helpful first, all of them or only those
// with photos or with a number of stars, a page at a time, each with its "Helpful" button
// and the shop's reply under it (and, for the shop's staff, the reply's editor).
function reviewList(shopId) {
  const list = h("div");
  const replying = canReplyAt(shopId);
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More reviews"));
  let sort = "new";
  let withPhotos = false;
  let stars = null;
  let page = 1;
  let generation = 0;
  async function load(reset) {
    if (reset) { generation += 1; page = 1; list.replaceChildren(); }
    const mine = generation;
    const query = new URLSearchParams({ sort, page });
    if (withPhotos) query.set("with_photos", "true");
    if (stars) query.set("stars", stars);
    const [data, canReply] = await Promise.all([get(`shops/${shopId}/reviews?${query}`), replying]);
    if (mine !== generation) return;
    list.append(...data.results.map((blog) => {
      const card = blogCard(blog);
      // A refused vote is told in the list's status line: a card's own is its reply's.
      card.append(h("div", { class: "row" }, helpfulButton(blog, status)), replySection(blog, canReply));
      return card;
    }));
    if (!data.results.length && page === 1) {
      list.append(h("p", {}, withPhotos || stars ? gettext("No review matches these filters.") : gettext("No reviews yet: be the first.")));
    }
    page += 1;
    more.hidden = !data.next;
  }
  const sorts = toggles(gettext("Order"), [["new", gettext("Newest")], ["liked", gettext("Most liked")], ["helpful", gettext("Most helpful")]],
    sort, status, (value) => { sort = value; return load(true); });
  const photos = toggles(gettext("Photos"), [[true, gettext("With photos")]], false, status,
    (value) => { withPhotos = Boolean(value); return load(true); }, true);
  const starChips = toggles(gettext("Stars"), [5, 4, 3, 2, 1].map((n) => [n, fmt(ngettext("%(n)s star", "%(n)s stars", n), { n })]),
    null, status, (value) => { stars = value; return load(true); }, true);
  more.addEventListener("click", act(more, status, () => load(false)));
  return { nodes: [sorts, h("div", { class: "row" }, photos, starChips), list, more, status], load };
}

export async function shopPage(id) {
  const show = screen();
  const reviews = reviewList(id);
  const [shop, vouchers, nearby] = await Promise.all(
    [get(`shops/${id}`), get(`shops/${id}/vouchers`), get(`shops/${id}/nearby?radius=1000`), reviews.load(true)]);
  const saves = h("span", { class: "muted" }, favouritesText(shop.favourites || 0));
  show(
    shop.images.length ? h("img", { class: "cover", src: shop.images[0], alt: `${shop.name}` }) : null,
    h("h1", {}, shop.name),
    h("p", { class: "muted" }, `${shop.area} · ${shop.address}`),
    shop.rank ? h("p", {}, rankBadge(shop)) : null,
    h("div", { class: "row" }, saveToggle("shop", shop.id, shop.saved, (state) => {
      saves.textContent = favouritesText(state.favourites);
    }), saves),
    h("p", {}, fmt(gettext("¥%(price)s/person · %(score)s · open %(hours)s"),
      { price: shop.avg_price, score: scoreText(shop.score), hours: shop.open_hours || "—" }),
    openNowBadge(shop)),
    h("p", {}, h("a", { href: `#/checkout?shop=${shop.id}` }, gettext("Pay a bill here, with a coupon"))),
    h("h2", {}, gettext("Vouchers")),
    vouchers.length ? vouchers.map(voucherCard) : h("p", {}, gettext("No vouchers for this shop.")),
    h("section", { "aria-label": gettext("Nearby") },
      h("h2", {}, gettext("Nearby, within 1 km")),
      nearby.results.length
        ? h("ul", { class: "nearby" }, nearby.results.map((near) => h("li", {},
          h("a", { href: `#/shops/${near.id}` }, near.name), fmt(gettext(" · %(metres)s m"), { metres: Math.round(near.distance) }))))
        : h("p", {}, gettext("No shops of this kind within 1 km."))),
    h("section", { "aria-label": gettext("Reviews") },
      h("h2", {}, fmt(ngettext("%(count)s review", "%(count)s reviews", shop.comments), { count: shop.comments })),
      histogram(shop),
      subScores(shop),
      h("p", {}, h("a", { href: `#/write?shop=${shop.id}` }, gettext("Write a review"))),
      ...reviews.nodes),
    claimSection(shop.id));
}
