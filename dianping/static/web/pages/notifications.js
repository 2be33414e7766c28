// Notifications: the inbox page, and the bell in the header with its unread count.

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { fmt, when } from "../lib/format.js";
import { screen } from "../lib/screen.js";
import { needLogin, session } from "../lib/session.js";

function notificationText(n) {
  const who = n.actor ? n.actor.nick_name : "";
  const title = (n.blog && n.blog.title) || (n.voucher && n.voucher.title) || "";
  const shop = n.shop ? n.shop.name : "";
  switch (n.kind) {
    case "followed": return fmt(gettext("%(who)s followed you"), { who });
    case "liked": return fmt(gettext("%(who)s liked your note “%(title)s”"), { who, title });
    case "commented": {
      // A note's comments fold into one item while it is unread (decision 285): its
      // count, and the newest comment with its author.
      const text = n.comment ? n.comment.content : "";
      if (n.count > 1) {
        return fmt(ngettext("%(n)s new comment on “%(title)s”, the newest from %(who)s: %(text)s",
          "%(n)s new comments on “%(title)s”, the newest from %(who)s: %(text)s", n.count),
        { n: n.count, who, title, text });
      }
      return fmt(gettext("%(who)s commented on “%(title)s”: %(text)s"), { who, title, text });
    }
    case "coupon_expiring": return fmt(gettext("Your coupon “%(title)s” expires within 24 hours"), { title });
    case "order_cancelled": return fmt(gettext("Your unpaid order for “%(title)s” was cancelled"), { title });
    case "sale_starting": return fmt(gettext("The flash sale “%(title)s” starts soon"), { title });
    case "review_replied": return fmt(gettext("%(shop)s replied to your review “%(title)s”"), { shop: n.shop ? n.shop.name : "", title });
    case "shop_reviewed": return fmt(gettext("%(who)s reviewed your shop %(shop)s: “%(title)s”"), { who, shop: n.shop ? n.shop.name : "", title });
    // A shop's side (merchants): its claim, its profile, its offers and its sales.
    case "claim_approved": return fmt(gettext("Your claim of %(shop)s was approved: you run the shop now"), { shop });
    case "claim_rejected": return fmt(gettext("Your claim of %(shop)s was turned down"), { shop });
    case "shop_change_approved": return fmt(gettext("The new name, address or position of %(shop)s was approved"), { shop });
    case "shop_change_rejected": return fmt(gettext("The new name, address or position of %(shop)s was turned down"), { shop });
    case "offer_approved": return fmt(gettext("Your offer “%(title)s” for %(shop)s was published"), { shop, title });
    case "offer_returned": return fmt(gettext("Your offer for %(shop)s was sent back"), { shop });
    case "sale_started": return fmt(gettext("The flash sale “%(title)s” of %(shop)s has started"), { shop, title });
    case "sale_sold_out": return fmt(gettext("The flash sale “%(title)s” of %(shop)s sold out"), { shop, title });
    default: return n.kind;
  }
}

// What a merchant notification links to: the shop's page on the merchant side for its
// staff, the public shop page for a claim turned down (its user runs nothing there).
const MERCHANT_KINDS = new Set(["claim_approved", "shop_change_approved", "shop_change_rejected",
  "offer_approved", "offer_returned", "sale_started", "sale_sold_out"]);

function notificationLink(n) {
  if (n.blog) return `#/blogs/${n.blog.id}`;
  if (n.order_id && n.kind === "coupon_expiring") return `#/orders/${n.order_id}`;
  if (n.kind === "order_cancelled") return "#/vouchers?tab=cancelled";
  if (n.kind === "followed" && n.actor) return `#/users/${n.actor.id}`;
  if (n.shop && MERCHANT_KINDS.has(n.kind)) return `#/merchant?shop=${n.shop.id}`;
  if (n.shop) return `#/shops/${n.shop.id}`;
  return "#/";
}

function notificationCard(n) {
  return h("div", { class: n.read ? "card notification" : "card notification unread" },
    h("a", { href: notificationLink(n) }, notificationText(n)),
    // An operator's reason for turning a claim, an offer or a profile change down.
    n.reason ? h("p", { class: "reason" }, fmt(gettext("Reason: %(reason)s"), { reason: n.reason })) : null,
    h("p", { class: "muted" }, when(n.created_at), n.read ? "" : ` · ${gettext("new")}`));
}

export async function notificationsPage() {
  const show = screen();
  if (!session.token) { needLogin(); return; }
  const page = await get("notifications");
  const list = h("div", { id: "notifications" }, page.results.map(notificationCard));
  const status = h("p", { class: "message", role: "status" });
  const markAll = h("button", { type: "button", class: "secondary" }, gettext("Mark all read"));
  markAll.addEventListener("click", act(markAll, status, async () => {
    const result = await api("POST", "notifications/read", { all: true });
    showUnread(result.unread);
    list.querySelectorAll(".unread").forEach((card) => card.classList.remove("unread"));
    return false;
  }));
  let lastId = page.last_id;
  const more = h("button", { type: "button", class: "secondary", hidden: !lastId }, gettext("More"));
  more.addEventListener("click", act(more, status, async () => {
    const next = await get(`notifications?last_id=${lastId}`);
    list.append(...next.results.map(notificationCard));
    lastId = next.last_id;
    more.hidden = !lastId;
    return false;
  }));
  show(h("h1", {}, gettext("Notifications")), h("div", { class: "row" }, markAll), status,
    page.results.length ? list : h("p", { class: "muted" }, gettext("Nothing yet.")), more);
}

// The bell: its badge counts unread notifications, asked on every navigation and every
// 30 s while the page is visible (a hidden tab asks nothing).
function showUnread(count) {
  const badge = document.getElementById("bell-count");
  badge.textContent = count > 99 ? "99+" : String(count);
  badge.hidden = !count;
  document.getElementById("bell").setAttribute("aria-label",
    fmt(ngettext("Notifications (%(n)s unread)", "Notifications (%(n)s unread)", count), { n: count }));
}

export async function refreshBell() {
  const bell = document.getElementById("bell");
  bell.hidden = !session.token;
  if (!session.token) return;
  const result = await get("notifications/unread-count").catch(() => null);
  if (result) showUnread(result.unread);
}

export function watchBell() {
  setInterval(() => { if (document.visibilityState === "visible") refreshBell(); }, 30000);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") refreshBell(); });
}
