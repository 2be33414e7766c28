// "Helpful" on a review (a note about a shop): the count, and a toggle for signed-in
// readers other than its author, whose own review shows the count alone (the API refuses
// that vote, decision 377). Shared by a shop's review list and a review's own page.

import { act } from "./act.js";
import { api } from "./api.js";
import { h } from "./dom.js";
import { fmt } from "./format.js";
import { needLogin, session } from "./session.js";

// `status` is where a refused vote is told: the list's status line, or the page's.
export function helpfulButton(blog, status) {
  const text = (n) => fmt(gettext("Helpful (%(count)s)"), { count: n });
  const me = session.user;
  if (me && String(me.id) === String(blog.user.id)) {
    return h("span", { class: "muted" }, fmt(ngettext("%(count)s found this helpful", "%(count)s found this helpful", blog.helpful), { count: blog.helpful }));
  }
  let voted = Boolean(blog.voted_helpful);
  const button = h("button", { type: "button", class: "secondary helpful", "aria-pressed": String(voted) }, text(blog.helpful));
  button.addEventListener("click", act(button, status, async () => {
    if (needLogin()) return;
    const state = await api(voted ? "DELETE" : "PUT", `blogs/${blog.id}/helpful`);
    voted = state.voted_helpful;
    button.setAttribute("aria-pressed", String(voted));
    button.textContent = text(state.helpful);
  }));
  return button;
}
