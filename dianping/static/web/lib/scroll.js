// Infinite scroll: the next page is loaded when a sentinel under the list comes within
// 300 px of view, one load at a time, with "Try again" after a failure. Shared by the
// feed and My favourites; it imports no page (lib modules never do).

import { explain } from "./api.js";
import { h } from "./dom.js";

// `loadPage()` appends the next page to the list and resolves true when it was the last;
// `endText()` is what the status line says then. Show `nodes` under the list, then call
// `start()`: the sentinel's first report loads the first page.
export function infiniteScroll(loadPage, endText) {
  const end = h("p", { class: "muted", role: "status" });
  const retry = h("button", { type: "button", hidden: true, onclick: () => { retry.hidden = true; more(); } }, gettext("Try again"));
  const sentinel = h("div", { "aria-hidden": "true" });
  let loading = false;
  let finished = false;
  const observer = new IntersectionObserver((entries) => {
    if (!sentinel.isConnected) { observer.disconnect(); return; }
    if (entries.some((e) => e.isIntersecting)) more();
  }, { rootMargin: "0px 0px 300px 0px" });
  async function more() {
    if (loading || finished) return;
    loading = true;
    try {
      if (await loadPage()) {
        finished = true;
        observer.disconnect();
        end.textContent = endText();
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
  return { nodes: [sentinel, end, retry], start: () => observer.observe(sentinel) };
}
