// The feed: notes of the people one follows, loaded page by page while scrolling.

import { get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { screen } from "../lib/screen.js";
import { infiniteScroll } from "../lib/scroll.js";
import { needLogin } from "../lib/session.js";
import { blogCard } from "./notes.js";

export async function feedPage() {
  const show = screen();
  if (needLogin()) return;
  const list = h("div");
  let cursor = {};
  const scroll = infiniteScroll(async () => {
    // An empty page means the inbox is exhausted (the server reads past deleted items).
    const query = cursor.max_time === undefined ? "" : `?max_time=${cursor.max_time}&offset=${cursor.offset}`;
    const page = await get(`feed${query}`);
    list.append(...page.results.map(blogCard));
    cursor = { max_time: page.min_time, offset: page.offset };
    return !page.results.length;
  }, () => (list.children.length
    ? gettext("You are all caught up.") : gettext("Nothing yet: follow people to see their notes here.")));
  show(h("h1", {}, pgettext("the feed's title", "Following")), list, ...scroll.nodes);
  scroll.start();
}
