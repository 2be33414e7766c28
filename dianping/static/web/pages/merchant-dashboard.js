// The merchant area's dashboard (#/merchant?shop=ID&days=7|30): for a shop the user owns or
// works at, its page's visitors and views, coupons claimed, flash-sale orders and
// redemptions per day, drawn as SVG lines (no chart library, as the admin's live sale
// page); the rating histogram as bars, the weekly average rating, the reviews awaiting
// the shop's reply, and the per-day numbers as a CSV download.

import { act } from "../lib/act.js";
import { ApiError, clientId, get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { fmt, when } from "../lib/format.js";
import { session } from "../lib/session.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 180;
const PAD = { left: 48, right: 12, top: 12, bottom: 24 };
export const WINDOWS = [7, 30];

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// A round ceiling for the y axis: 1, 2 or 5 times a power of ten.
function niceMax(value) {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value);
}

const shortDate = (iso) => iso.slice(5); // "07-10" of "2026-07-10"

// A line chart: one polyline a series over the same x labels (a null value breaks its
// line), the y axis from 0 to `top` (a round ceiling of the values unless given).
function lineChart({ label, xs, series, top }) {
  const values = series.flatMap((s) => s.values.filter((v) => v !== null));
  const max = top || niceMax(Math.max(0, ...values));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (xs.length > 1 ? (i / (xs.length - 1)) * innerW : innerW / 2);
  const y = (v) => PAD.top + innerH - (v / max) * innerH;
  const grid = [0, max / 2, max].map((v) => [
    svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: "grid-line" }),
    svg("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, String(Math.round(v * 10) / 10)),
  ]);
  const lines = series.map((s) => {
    const segments = [[]];
    s.values.forEach((v, i) => {
      if (v === null) segments.push([]);
      else segments[segments.length - 1].push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    });
    return svg("g", { class: `series ${s.key}`, "data-series": s.key },
      segments.filter((points) => points.length > 1).map((points) => svg("polyline", { points: points.join(" ") })),
      s.values.map((v, i) => (v === null ? null : svg("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3 },
        svg("title", {}, `${xs[i]}: ${s.label} ${v}`)))));
  });
  const ticks = [0, Math.floor((xs.length - 1) / 2), xs.length - 1].filter((i, n, all) => all.indexOf(i) === n);
  const anchor = (i) => (i === 0 && xs.length > 1 ? "start" : i === xs.length - 1 && xs.length > 1 ? "end" : "middle");
  const xLabels = ticks.map((i) => svg("text", { x: x(i), y: HEIGHT - 6, "text-anchor": anchor(i), class: "axis" }, shortDate(xs[i])));
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label, class: "chart" },
    svg("title", {}, label), grid, lines, xLabels);
  const legend = h("ul", { class: "legend" },
    series.map((s) => h("li", { class: s.key }, h("span", { class: "swatch", "aria-hidden": "true" }), s.label)));
  return h("figure", { class: "card chart-card" }, h("figcaption", {}, label), chart, legend);
}

// The rating histogram: a horizontal bar a star count, 5 stars on top.
function histogramChart(histogram) {
  const label = gettext("Ratings by stars");
  const max = Math.max(1, ...histogram);
  const rowH = 28;
  const barX = 56;
  const barW = WIDTH - barX - 60;
  const rows = [5, 4, 3, 2, 1].map((stars, row) => {
    const count = histogram[stars - 1];
    const top = row * rowH + 4;
    return svg("g", { class: "bar", "data-stars": stars },
      svg("text", { x: 0, y: top + 16, class: "axis" }, fmt(gettext("%(stars)s ★"), { stars })),
      svg("rect", { x: barX, y: top, width: Math.max(count ? 2 : 0, (count / max) * barW).toFixed(1), height: rowH - 10 }),
      svg("text", { x: barX + (count / max) * barW + 6, y: top + 16, class: "axis" }, String(count)));
  });
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${5 * rowH}`, role: "img", "aria-label": label, class: "chart bars" },
    svg("title", {}, label), rows);
  return h("figure", { class: "card chart-card" }, h("figcaption", {}, label), chart);
}

function numberCard(key, label, value) {
  return h("div", { class: "card number", "data-number": key }, h("span", { class: "stat" }, String(value)), h("span", { class: "muted" }, label));
}

function stars(count) {
  return h("span", { class: "stars", "aria-label": fmt(ngettext("%(count)s star", "%(count)s stars", count), { count }) }, "★".repeat(count));
}

// The CSV is the caller's own: fetched with the token, then saved from memory (a plain
// link could not send the Authorization header).
function csvLink(shopId, days, status) {
  const path = `merchant/shops/${shopId}/dashboard.csv?days=${days}`;
  const link = h("a", { href: `/api/${path}`, download: "", class: "download" }, gettext("Download CSV"));
  link.addEventListener("click", act(link, status, async () => {
    const response = await fetch(`/api/${path}`, { headers: { Authorization: `Bearer ${session.token}`, "X-Client-Id": clientId() } });
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
    const name = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
    const url = URL.createObjectURL(await response.blob());
    const save = h("a", { href: url, download: name ? name[1] : "dashboard.csv", hidden: true });
    document.body.append(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }));
  return link;
}

// The dashboard of the shop `shopId` over `days`; `go(days)` moves to another window.
export async function dashboardSection(shopId, days, go) {
  const windows = h("div", { class: "tabs", role: "group", "aria-label": gettext("Window") },
    WINDOWS.map((span) => h("button", { type: "button", "aria-selected": String(span === days), onclick: () => go(span) },
      fmt(gettext("Last %(days)s days"), { days: span }))));

  const data = await get(`merchant/shops/${shopId}/dashboard?days=${days}`);
  const dates = data.by_day.map((d) => d.date);
  const column = (key) => data.by_day.map((d) => d[key]);
  const status = h("p", { class: "message", role: "status" });
  const t = data.totals;
  const cards = h("div", { class: "numbers" },
    numberCard("uv", gettext("Visitors"), t.uv),
    numberCard("pv", gettext("Page views"), t.pv),
    numberCard("claims", gettext("Coupons claimed"), t.claims),
    numberCard("sales", gettext("Flash-sale orders"), t.sales),
    numberCard("redemptions", gettext("Redemptions"), t.redemptions),
    numberCard("awaiting", gettext("Reviews awaiting reply"), data.awaiting_reply_count));

  const traffic = lineChart({ label: gettext("Visitors and page views"), xs: dates, series: [
    { key: "uv", label: gettext("Visitors"), values: column("uv") },
    { key: "pv", label: gettext("Page views"), values: column("pv") },
  ] });
  const coupons = lineChart({ label: gettext("Coupons claimed, sold and redeemed"), xs: dates, series: [
    { key: "claims", label: gettext("Coupons claimed"), values: column("claims") },
    { key: "sales", label: gettext("Flash-sale orders"), values: column("sales") },
    { key: "redemptions", label: gettext("Redemptions"), values: column("redemptions") },
  ] });
  const trend = lineChart({ label: gettext("Average rating by week"), top: 5,
    xs: data.rating_trend.map((w) => w.week_end),
    series: [{ key: "rating", label: gettext("Average rating"), values: data.rating_trend.map((w) => w.average) }] });

  const awaiting = data.awaiting_reply.length
    ? h("ul", { class: "awaiting" }, data.awaiting_reply.map((review) => h("li", { class: "card" },
      stars(review.rating), " ", h("a", { href: `#/blogs/${review.id}` }, review.title),
      h("span", { class: "muted" }, ` · ${review.user.nick_name} · ${when(review.created_at)}`))))
    : h("p", { class: "muted" }, gettext("Every review has the shop's reply."));

  const score = data.ratings.score ? (data.ratings.score / 10).toFixed(1) : "–";
  return [
    windows,
    h("p", { class: "muted" }, fmt(gettext("%(from)s to %(to)s"), { from: data.date_from, to: data.date_to }), " · ",
      h("a", { href: `#/shops/${shopId}` }, gettext("The shop's page")), " · ", csvLink(shopId, days, status)),
    status,
    cards,
    h("div", { class: "charts" }, traffic, coupons),
    h("h2", {}, gettext("Ratings")),
    h("p", {}, fmt(gettext("Score: %(score)s"), { score })),
    h("div", { class: "charts" }, histogramChart(data.ratings.histogram), trend),
    h("h2", {}, fmt(gettext("Reviews awaiting reply (%(count)s)"), { count: data.awaiting_reply_count })),
    awaiting,
  ];
}
