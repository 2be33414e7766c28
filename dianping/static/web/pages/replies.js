// A shop's official reply under a review ("商家回复"): shown to everyone, and, for a member
// of the shop's staff, written, edited and deleted in place (PUT / DELETE
// /api/blogs/{id}/reply).

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { when } from "../lib/format.js";
import { session } from "../lib/session.js";
import { reportControl } from "./reports.js";

// Whether the caller may reply to the shop's reviews (a member of its staff); false for
// anonymous callers and when the question cannot be answered.
export async function canReplyAt(shopId) {
  if (!session.token) return false;
  const state = await get(`shops/${shopId}/reviews/reply-state`).catch(() => null);
  return Boolean(state && state.can_reply);
}

// The reply section under a review: the shop's reply if any, and for a member of the
// shop's staff a "Reply" button, or "Edit reply" and "Delete reply".
export function replySection(blog, canReply) {
  const section = h("section", { class: "reply", "aria-label": gettext("Merchant's reply"), "data-reply-for": String(blog.id) });
  let reply = blog.reply || null;
  const status = h("p", { class: "message", role: "status" });

  function shown() {
    return h("div", { class: "reply-body" },
      h("p", { class: "muted" }, h("strong", {}, gettext("Merchant's reply")),
        ` · ${reply.shop_name} · ${when(reply.updated_at)}`),
      h("p", {}, reply.text));
  }

  function editor() {
    const fieldId = `reply-text-${blog.id}`;
    const text = h("textarea", { id: fieldId, name: "text", maxlength: "1000", rows: "3", required: true }, reply ? reply.text : "");
    const save = h("button", { type: "submit" }, gettext("Publish reply"));
    const cancel = h("button", { type: "button", class: "secondary", onclick: () => render() }, pgettext("form", "Cancel"));
    const form = h("form", { class: "reply-form", onsubmit: act(save, status, async () => {
      reply = await api("PUT", `blogs/${blog.id}/reply`, { text: text.value });
      render();
      message(status, gettext("Reply published."), true);
    }) },
    h("label", { for: fieldId }, gettext("Your reply, as the shop")), text,
    h("div", { class: "row" }, save, cancel));
    return form;
  }

  function controls() {
    if (!reply) {
      const open = h("button", { type: "button", class: "secondary" }, gettext("Reply"));
      open.addEventListener("click", () => { section.replaceChildren(editor(), status); section.querySelector("textarea").focus(); });
      return h("div", { class: "row" }, open);
    }
    const edit = h("button", { type: "button", class: "secondary" }, gettext("Edit reply"));
    edit.addEventListener("click", () => { section.replaceChildren(shown(), editor(), status); section.querySelector("textarea").focus(); });
    const remove = h("button", { type: "button", class: "secondary" }, gettext("Delete reply"));
    remove.addEventListener("click", act(remove, status, async () => {
      if (!window.confirm(gettext("Delete the shop's reply to this review?"))) return;
      await api("DELETE", `blogs/${blog.id}/reply`);
      reply = null;
      render();
      message(status, gettext("Reply deleted."), true);
    }));
    return h("div", { class: "row" }, edit, remove);
  }

  function render() {
    const parts = [];
    if (reply) parts.push(shown());
    if (canReply && blog.rating) parts.push(controls());
    else if (reply && session.token) parts.push(reportControl("reply", reply.id));
    section.replaceChildren(...parts, status);
    section.hidden = !parts.length;
  }

  render();
  return section;
}
