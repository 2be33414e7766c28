// The feed: notes of the people one follows, loaded page by page while scrolling.

import { explain, get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { screen } from "../lib/screen.js";
import { needLogin } from "../lib/session.js";
import { blogCard } from "./notes.js";

export async function feedPage() {
  const show = screen();
  if (needLogin()) return;
  const list = h("div");
  const end = h("p", { class: "muted", role: "status" });
  const retry = h("button", { type: "button", hidden: true, onclick: () => { retry.hidden = true; more(); } }, gettext("Try again"));
  const sentinel = h("div", { "aria-hidden": "true" });
  let cursor = {};
  let loading = false;
  let finished = false;
  // Load the next page when the sentinel under the list comes within 300 px of view.
  const observer = new IntersectionObserver((entries) => {
    if (!sentinel.isConnected) { observer.disconnect(); return; }
    if (entries.some((e) => e.isIntersecting)) more();
  }, { rootMargin: "0px 0px 300px 0px" });
  async function more() {
    if (loading || finished) return;
    loading = true;
    try {
      // An empty page means the inbox is exhausted (the server reads past deleted items).
      const query = cursor.max_time === undefined ? "" : `?max_time=${cursor.max_time}&offset=${cursor.offset}`;
      const page = await get(`feed${query}`);
      list.append(...page.results.map(blogCard));
      cursor = { max_time: page.min_time, offset: page.offset };
      if (!page.results.length) {
        finished = true;
        observer.disconnect();
        end.textContent = list.children.length
          ? gettext("You are all caught up.") : gettext("Nothing yet: follow people to see their notes here.");
        return;
      }
    } catch (error) {
      end.textContent = explain(error);
      retry.hidden = false;
      return;
    } finally {
      loading = false;
    }
    // Observe afresh: a new observation always reports first whether the sentinel is in
    // view (the page is not full yet), which an unchanged view would never report again.
    observer.unobserve(sentinel);
    observer.observe(sentinel);
  }
  show(h("h1", {}, pgettext("the feed's title", "Following")), list, sentinel, end, retry);
  observer.observe(sentinel); // its first report loads the first page
}
