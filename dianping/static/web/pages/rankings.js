// Rankings: the chosen city's weekly lists (GET /api/rankings), one tab per shop type and
// per district that has a list (the badge a ranked shop carries is in lib/rank.js).

import { get } from "../lib/api.js";
import { inCity } from "../lib/city.js";
import { h } from "../lib/dom.js";
import { fmt } from "../lib/format.js";
import { screen } from "../lib/screen.js";
import { shopCard } from "./shops.js";

export async function rankingsPage(params) {
  const show = screen();
  const types = await get("shop-types");
  const area = params.get("area");
  const typeId = area ? null : (params.get("type") || (types[0] && String(types[0].id)));
  if (!area && !typeId) { show(h("h1", {}, gettext("Rankings")), h("p", {}, gettext("No rankings yet."))); return; }
  const query = await inCity(area ? { area } : { type_id: typeId });
  const answer = await get(`rankings?${query}`);
  const typeName = new Map(types.map((t) => [String(t.id), t.name]));
  const tab = (href, label, current) => h("a", { href, class: current ? "tab current" : "tab", "aria-current": current ? "page" : null }, label);
  show(
    h("h1", {}, gettext("Rankings")),
    h("p", { class: "muted" }, answer.week
      ? fmt(gettext("This week's best (%(week)s), from ratings, reviews, saves and visits."), { week: answer.week })
      : gettext("No rankings yet.")),
    h("nav", { class: "tabs", "aria-label": gettext("By type") },
      answer.lists.type_ids.map((id) => tab(`#/rankings?type=${id}`, typeName.get(String(id)) || String(id), String(id) === typeId))),
    h("nav", { class: "tabs", "aria-label": gettext("By district") },
      answer.lists.areas.map((name) => tab(`#/rankings?area=${encodeURIComponent(name)}`, name, name === area))),
    answer.results.length
      ? h("ol", { class: "ranking" }, answer.results.map((entry) => h("li", {},
        h("p", { class: "rank" }, fmt(gettext("No. %(rank)s"), entry)), shopCard(entry.shop))))
      : h("p", {}, gettext("No shop is ranked here yet.")));
}
