// Hash routes: which page draws #/path, logging out, and what a failed page shows.

import { ApiError, api, explain } from "./lib/api.js";
import { h } from "./lib/dom.js";
import { navigated, screen } from "./lib/screen.js";
import { needLogin, renderAccountLink, session } from "./lib/session.js";
import { billsPage, checkoutPage } from "./pages/checkout.js";
import { feedPage } from "./pages/feed.js";
import { favouritesPage } from "./pages/favourites.js";
import { homePage } from "./pages/home.js";
import { loginPage } from "./pages/login.js";
import { merchantPage, refreshMerchantLink } from "./pages/merchant.js";
import { blogPage } from "./pages/notes.js";
import { notificationsPage, refreshBell } from "./pages/notifications.js";
import { orderPage, vouchersPage } from "./pages/orders.js";
import { followListPage, userPage } from "./pages/profile.js";
import { rankingsPage } from "./pages/rankings.js";
import { redeemPage } from "./pages/redeem.js";
import { searchPage } from "./pages/search.js";
import { shopPage, shopsPage } from "./pages/shops.js";
import { signPage } from "./pages/sign.js";
import { writePage } from "./pages/write.js";

// A pattern's one group, if any, is the page's first argument; the query's params follow.
const ROUTES = [
  [/^\/$/, homePage],
  [/^\/login$/, loginPage],
  [/^\/shops$/, shopsPage],
  [/^\/search$/, searchPage],
  [/^\/shops\/(\d+)$/, shopPage],
  [/^\/vouchers$/, vouchersPage],
  [/^\/orders\/(\d+)$/, orderPage],
  [/^\/checkout$/, checkoutPage],
  [/^\/bills$/, billsPage],
  [/^\/redeem$/, redeemPage],
  [/^\/blogs\/(\d+)$/, blogPage],
  [/^\/write$/, writePage],
  [/^\/users\/(\d+)$/, userPage],
  [/^\/users\/(\d+)\/followers$/, (id, params) => followListPage(id, params, "followers")],
  [/^\/users\/(\d+)\/following$/, (id, params) => followListPage(id, params, "following")],
  [/^\/feed$/, feedPage],
  [/^\/favourites$/, favouritesPage],
  [/^\/rankings$/, rankingsPage],
  [/^\/sign$/, signPage],
  [/^\/notifications$/, notificationsPage],
  [/^\/merchant$/, merchantPage],
];

export async function route() {
  const [path, query] = (location.hash.slice(1) || "/").split("?");
  const params = new URLSearchParams(query || "");
  navigated();
  const show = screen();
  if (path === "/logout") {
    await api("POST", "auth/logout").catch(() => null);
    session.clear();
    renderAccountLink();
    refreshMerchantLink();
    location.hash = "#/";
    return;
  }
  refreshBell(); // not while logging out: the token is on its way out
  refreshMerchantLink();
  for (const [pattern, page] of ROUTES) {
    const match = path.match(pattern);
    if (!match) continue;
    try {
      await (match[1] ? page(match[1], params) : page(params));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) { needLogin(); return; }
      show(h("h1", {}, gettext("Sorry")), h("p", { class: "message" }, explain(error)));
    }
    return;
  }
  show(h("h1", {}, gettext("Not found")), h("p", {}, h("a", { href: "#/" }, gettext("Back home"))));
}
