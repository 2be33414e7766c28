// The merchant area, "My shops" (#/merchant?shop=ID&tab=dashboard|profile|offers): the
// shops the user owns or works at, one chosen, and its sections: the dashboard (owner and
// clerks), the profile and opening hours and the offers (the owner only, as the API);
// below, the user's shop claims. The header's "My shops" link shows for shop staff.

import { get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { screen } from "../lib/screen.js";
import { needLogin, session } from "../lib/session.js";
import { claimsList } from "./claims.js";
import { WINDOWS, dashboardSection } from "./merchant-dashboard.js";
import { offersSection } from "./merchant-offers.js";
import { profileSection } from "./merchant-profile.js";

const TABS = [
  { key: "dashboard", label: gettext("Dashboard"), owner: false, section: (shop, days, go) => dashboardSection(shop, days, go) },
  { key: "profile", label: gettext("Profile & hours"), owner: true, section: (shop) => profileSection(shop) },
  { key: "offers", label: gettext("Offers"), owner: true, section: (shop) => offersSection(shop) },
];

// The header's "My shops": asked once per login (the token), told again by this page.
let linkFor = null;

function showMerchantLink(shown) {
  const link = document.getElementById("merchant-link");
  if (link) link.hidden = !shown;
}

export async function refreshMerchantLink() {
  const token = session.token;
  if (!token) { linkFor = null; showMerchantLink(false); return; }
  if (linkFor === token) return;
  linkFor = token;
  const mine = await get("merchant/shops?page_size=1").catch(() => null);
  if (session.token === token) showMerchantLink(Boolean(mine && mine.count));
}

export async function merchantPage(params) {
  const show = screen();
  if (needLogin()) return;
  const [memberships, claims] = await Promise.all([get("merchant/shops?page_size=50"), claimsList()]);
  const mine = memberships.results;
  linkFor = session.token;
  showMerchantLink(mine.length > 0);
  if (!mine.length) {
    show(h("h1", {}, gettext("My shops")), h("p", { class: "muted" }, gettext("You do not run a shop on Dianping yet.")), claims.nodes);
    return;
  }
  const chosen = mine.find((m) => String(m.id) === params.get("shop")) || mine[0];
  const owner = chosen.role === "owner";
  const tabs = TABS.filter((tab) => owner || !tab.owner);
  const tab = tabs.find((t) => t.key === params.get("tab")) || tabs[0];
  const days = WINDOWS.includes(Number(params.get("days"))) ? Number(params.get("days")) : 7;
  const go = (changes) => {
    const next = new URLSearchParams({ shop: chosen.id, tab: tab.key, days, ...changes });
    location.hash = `#/merchant?${next}`;
  };

  const switcher = h("select", { id: "merchant-shop", name: "shop" },
    mine.map((m) => h("option", { value: m.id, selected: m.id === chosen.id },
      `${m.name} · ${m.role === "owner" ? gettext("owner") : gettext("clerk")}`)));
  switcher.addEventListener("change", () => go({ shop: switcher.value }));
  const nav = h("nav", { class: "tabs sections", "aria-label": gettext("Sections") },
    tabs.map((t) => h("a", { href: `#/merchant?shop=${chosen.id}&tab=${t.key}`, "aria-current": t === tab ? "page" : null }, t.label)));
  const section = await tab.section(chosen.id, days, (span) => go({ days: span }));
  show(
    h("h1", {}, gettext("My shops")),
    h("label", { for: "merchant-shop" }, gettext("Shop")), switcher,
    nav,
    h("section", { class: `merchant-${tab.key}`, "aria-label": tab.label }, section),
    owner ? null : h("p", { class: "muted" }, gettext("The shop's owner keeps its profile and offers.")),
    claims.nodes,
  );
}
