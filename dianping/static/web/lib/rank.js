// The badge a ranked shop carries on its page and cards. Here rather than in
// pages/rankings.js, which imports pages/shops.js: an import cycle between the two would
// keep collectstatic's hashed names from ever settling.

import { h } from "./dom.js";
import { fmt } from "./format.js";

// "静安寺榜 第3名": a shop's best place this week (its `rank`); nothing when unranked.
export function rankBadge(shop) {
  const rank = shop.rank;
  if (!rank) return null;
  const href = rank.area !== null ? `#/rankings?area=${encodeURIComponent(rank.area)}` : `#/rankings?type=${rank.type_id}`;
  return h("a", { class: "rank-badge", href }, fmt(gettext("No. %(rank)s on the %(list)s list"), rank));
}
