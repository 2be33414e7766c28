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
  const card = h("div", { class: n.read ? "card notification" : "card notification unread" },
    h("a", { href: notificationLink(n) }, notificationText(n)),
    // An operator's reason for turning a claim, an offer or a profile change down.
    n.reason ? h("p", { class: "reason" }, fmt(gettext("Reason: %(reason)s"), { reason: n.reason })) : null,
    h("p", { class: "muted" }, when(n.created_at), n.read ? "" : ` · ${gettext("new")}`));
  card.dataset.id = n.id;
  if (n.kind === "commented" && n.blog) card.dataset.fold = `commented:${n.blog.id}`;
  return card;
}

// What the stream pushes while the page is open: a new item goes on top (once: the page's
// own load may hold it already), and takes the place of the unread item of the same
// note's comments it folded in (decision 285); a count of 0 means all were read.
function followStream(list, empty) {
  const stop = onStream({
    notification(n) {
      if (!list.isConnected && !empty.isConnected) { stop(); return; }
      if (list.querySelector(`[data-id="${n.id}"]`)) return;
      const card = notificationCard(n);
      if (card.dataset.fold) list.querySelectorAll(`.unread[data-fold="${card.dataset.fold}"]`).forEach((old) => old.remove());
      list.prepend(card);
      if (empty.isConnected) empty.replaceWith(list);
    },
    unread(count) {
      if (!list.isConnected) return;
      if (count === 0) list.querySelectorAll(".unread").forEach((card) => card.classList.remove("unread"));
    },
  });
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
  const empty = h("p", { class: "muted" }, gettext("Nothing yet."));
  show(h("h1", {}, gettext("Notifications")), h("div", { class: "row" }, markAll), status,
    page.results.length ? list : empty, more);
  followStream(list, empty);
}

// The bell: its badge counts unread notifications. While the notification stream is open
// (below) the stream keeps it, and the notifications page, up to date; without it (no
// stream configured, or it failed) the count is asked on every navigation and every 30 s
// while the page is visible (a hidden tab asks nothing).
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
  if (!session.token) { closeStream(); lastEventId = ""; return; } // logged out
  if (live) return; // the stream keeps the count
  openStream();
  const result = await get("notifications/unread-count").catch(() => null);
  if (result) showUnread(result.unread);
}

export function watchBell() {
  setInterval(() => { if (document.visibilityState === "visible" && !live) refreshBell(); }, 30000);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") refreshBell(); });
}

// The notification stream (server-sent events; docs/operations.md "Notification stream"):
// one EventSource per tab, opened with a ticket (an EventSource cannot send the token) at
// the URL the page names, `:<port>/<path>` meaning this host on another port. A stream
// that fails or ends is closed and opened again with a new ticket, after 1 s, 2 s, 4 s, …
// up to a minute, resuming after the last event it got; the count is polled meanwhile.
const STREAM_URL = document.body.dataset.streamUrl || "";
let source = null; // the EventSource, while one is open or opening
let live = false; // whether it has answered since it opened
let lastEventId = "";
let retryDelay = 1000;
let retryTimer = null;
const subscribers = new Set();

function onStream(handlers) {
  subscribers.add(handlers);
  return () => subscribers.delete(handlers);
}

function streamUrl(path) {
  if (path.startsWith(":")) return `${location.protocol}//${location.hostname}${path}`;
  return new URL(path, location.href).href;
}

async function openStream() {
  if (!STREAM_URL || source || retryTimer || !session.token) return;
  source = "opening";
  let ticket;
  try {
    ticket = await api("POST", "notifications/stream-ticket");
  } catch {
    source = null;
    if (session.token) retryLater();
    return;
  }
  if (source !== "opening" || !session.token) return; // closed meanwhile (a logout)
  const url = new URL(streamUrl(ticket.url || STREAM_URL));
  url.searchParams.set("ticket", ticket.ticket);
  if (lastEventId) url.searchParams.set("last_event_id", lastEventId);
  const opened = new EventSource(url.href);
  source = opened;
  opened.addEventListener("unread", (event) => {
    lastEventId = event.lastEventId || lastEventId;
    live = true;
    retryDelay = 1000;
    const count = JSON.parse(event.data).unread;
    showUnread(count);
    subscribers.forEach((handlers) => handlers.unread(count));
  });
  opened.addEventListener("notification", (event) => {
    lastEventId = event.lastEventId || lastEventId;
    const item = JSON.parse(event.data);
    subscribers.forEach((handlers) => handlers.notification(item));
  });
  opened.addEventListener("error", () => {
    if (source !== opened) return;
    closeStream();
    if (session.token) retryLater();
  });
}

function retryLater() {
  live = false;
  const delay = retryDelay * (0.75 + Math.random() / 2); // tabs apart, not in step
  retryDelay = Math.min(retryDelay * 2, 60000);
  retryTimer = setTimeout(() => { retryTimer = null; openStream(); }, delay);
  refreshBell(); // polled while the stream is away
}

function closeStream() {
  if (source && source !== "opening") source.close();
  source = null;
  live = false;
}
