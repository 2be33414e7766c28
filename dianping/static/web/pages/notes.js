// Notes (blogs): the card every list of notes shows, and a note's page with its likes,
// saves, a review's "Helpful" vote, first likers and comments.

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { fmt, when } from "../lib/format.js";
import { helpfulButton } from "../lib/helpful.js";
import { favouritesText, saveToggle } from "../lib/save.js";
import { screen } from "../lib/screen.js";
import { needLogin, session } from "../lib/session.js";
import { canReplyAt, replySection } from "./replies.js";
import { reportControl } from "./reports.js";

function stars(rating) {
  return h("span", { class: "stars", role: "img", "aria-label": fmt(ngettext("%(n)s star", "%(n)s stars", rating), { n: rating }) },
    "★".repeat(rating) + "☆".repeat(5 - rating));
}

// A review's optional sub-scores, as the API names them, with their labels (read when
// shown, so they follow the language).
export const SUB_SCORES = [
  ["taste", () => gettext("Taste")],
  ["environment", () => gettext("Environment")],
  ["service", () => gettext("Service")],
];

// "Taste 5 · Service 4": the sub-scores a review gave, or nothing.
function subScoreLine(blog) {
  const given = SUB_SCORES.filter(([name]) => blog[name]);
  if (!given.length) return null;
  return h("p", { class: "muted sub-scores" }, given.map(([name, label]) =>
    fmt(gettext("%(aspect)s %(stars)s"), { aspect: label(), stars: blog[name] })).join(" · "));
}

export function blogCard(blog) {
  const picture = blog.images && blog.images.length ? blog.images[0] : null;
  return h("article", { class: picture ? "card shop" : "card" },
    picture ? h("img", { class: "thumb", src: picture, alt: "", loading: "lazy" }) : null,
    h("h3", {}, h("a", { href: `#/blogs/${blog.id}` }, blog.title)),
    blog.rating ? h("p", {}, stars(blog.rating)) : null,
    subScoreLine(blog),
    h("p", { class: "muted" },
      blog.user ? h("a", { href: `#/users/${blog.user.id}` }, blog.user.nick_name) : null,
      blog.user ? " · " : "", `♥ ${blog.liked}`, blog.is_liked ? gettext(" (you)") : ""),
    blog.excerpt || blog.content ? h("p", {}, (blog.excerpt || blog.content).slice(0, 120)) : null,
    saveToggle("blog", blog.id, blog.saved));
}

export async function blogPage(id) {
  const show = screen();
  const [blog, likers, comments] = await Promise.all([
    get(`blogs/${id}`), get(`blogs/${id}/likes`), get(`blogs/${id}/comments`),
  ]);
  const canReply = blog.shop_id && blog.rating ? await canReplyAt(blog.shop_id) : false;
  const likesText = (n) => fmt(ngettext("%(count)s like", "%(count)s likes", n), { count: n });
  const count = h("span", {}, likesText(blog.liked));
  const top = h("ol", { class: "likers", "aria-label": gettext("First likers") });
  const fillLikers = (users) => top.replaceChildren(...users.map((u) => h("li", {}, h("a", { href: `#/users/${u.id}` }, u.nick_name))));
  fillLikers(likers);
  let liked = blog.is_liked;
  const likeStatus = h("p", { class: "message", role: "status" });
  const likeText = () => (liked ? gettext("♥ Liked") : gettext("♡ Like"));
  const like = h("button", { type: "button", "aria-pressed": String(liked) }, likeText());
  like.addEventListener("click", act(like, likeStatus, async () => {
    if (needLogin()) return;
    const state = await api(liked ? "DELETE" : "POST", `blogs/${id}/like`);
    liked = state.is_liked;
    like.setAttribute("aria-pressed", String(liked));
    like.textContent = likeText();
    count.textContent = likesText(state.liked);
    get(`blogs/${id}/likes`).then(fillLikers, () => {}); // the like stands even if this fails
  }));
  const saves = h("span", { class: "muted" }, favouritesText(blog.favourites || 0));
  const me = session.user;
  let commentCount = blog.comments;
  const commentsTitle = h("h2", {}, "");
  const countComments = (delta) => {
    commentCount += delta;
    commentsTitle.textContent = fmt(gettext("Comments (%(count)s)"), { count: commentCount });
  };
  countComments(0);
  const commentItem = (c) => {
    const item = h("div", { class: "card comment", "data-comment": String(c.id) },
      h("p", {}, h("strong", {}, c.user.nick_name), ": ", c.content));
    const itemStatus = h("p", { class: "message", role: "status" });
    if (me && String(me.id) === String(c.user.id)) {
      const remove = h("button", { type: "button", class: "secondary" }, gettext("Delete"));
      remove.addEventListener("click", act(remove, itemStatus, async () => {
        if (!window.confirm(gettext("Delete this comment? Replies to it go too."))) return;
        await api("DELETE", `blogs/${id}/comments/${c.id}`);
        item.remove();
        // The server's count: replies beneath it went with it.
        const fresh = await get(`blogs/${id}`);
        countComments(fresh.comments - commentCount);
        return true;
      }));
      item.append(h("div", { class: "row" }, remove), itemStatus);
    } else {
      item.append(reportControl("comment", c.id)); // with its own status line
    }
    return item;
  };
  const commentList = h("div", {}, comments.results.map(commentItem));
  const text = h("input", { id: "comment", name: "comment", maxlength: "1000" });
  const status = h("p", { class: "message", role: "status" });
  const send = h("button", { type: "submit" }, gettext("Send"));
  const form = h("form", { onsubmit: act(send, status, async () => {
    if (needLogin()) return;
    commentList.append(commentItem(await api("POST", `blogs/${id}/comments`, { content: text.value })));
    countComments(1);
    text.value = "";
  }) }, h("label", { for: "comment" }, gettext("Add a comment")), h("div", { class: "row" }, text, send));
  show(
    h("h1", {}, blog.title),
    h("p", { class: "muted" }, h("a", { href: `#/users/${blog.user.id}` }, blog.user.nick_name), ` · ${when(blog.created_at)}`,
      blog.shop_id ? [" · ", h("a", { href: `#/shops/${blog.shop_id}` }, gettext("the shop"))] : ""),
    blog.rating ? h("p", {}, stars(blog.rating)) : null,
    subScoreLine(blog),
    h("p", {}, blog.content),
    blog.images.length ? h("div", { class: "photos" }, blog.images.map((url, i) =>
      h("img", { src: url, alt: fmt(gettext("Photo %(n)s of %(title)s"), { n: i + 1, title: blog.title }), loading: "lazy" }))) : null,
    replySection(blog, canReply),
    h("div", { class: "row" }, like, count,
      // A review's "Helpful": its refusal is told in the like's status line, the row's.
      blog.shop_id && blog.rating ? helpfulButton(blog, likeStatus) : null), likeStatus,
    h("div", { class: "row" }, saveToggle("blog", blog.id, blog.saved, (state) => {
      saves.textContent = favouritesText(state.favourites);
    }), saves),
    me && String(me.id) === String(blog.user.id) ? null : reportControl("blog", blog.id),
    h("h2", {}, gettext("First to like")), top,
    commentsTitle, commentList, form, status);
}
