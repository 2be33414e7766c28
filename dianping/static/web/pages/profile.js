// People: a profile (edited in place by its owner, with a picture), following, and the
// lists of followers and followed.

import { act } from "../lib/act.js";
import { ApiError, api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fmt, named, when } from "../lib/format.js";
import { picturePicker } from "../lib/pictures.js";
import { screen } from "../lib/screen.js";
import { session } from "../lib/session.js";
import { blogCard } from "./notes.js";

const GENDERS = { unspecified: gettext("Rather not say"), male: gettext("Male"), female: gettext("Female") };

function aboutText(info) {
  return [info.city, info.gender !== "unspecified" ? named(GENDERS, info.gender) : "",
    info.birthday ? fmt(gettext("born %(day)s"), { day: info.birthday }) : "", info.introduce].filter(Boolean).join(" · ");
}

function profileForm(info, onSaved) {
  // The owner's profile, edited in place: city, introduction, gender, birthday.
  const city = h("input", { id: "profile-city", name: "city", maxlength: "64", value: info.city });
  const introduce = h("textarea", { id: "profile-introduce", name: "introduce", maxlength: "128" });
  introduce.value = info.introduce;
  const gender = h("select", { id: "profile-gender", name: "gender" },
    Object.entries(GENDERS).map(([value, label]) => h("option", { value, selected: value === info.gender }, label)));
  const today = new Date().toISOString().slice(0, 10);
  const birthday = h("input", { id: "profile-birthday", name: "birthday", type: "date", min: "1900-01-01", max: today, value: info.birthday || "" });
  const status = h("p", { class: "message", role: "status" });
  const save = h("button", { type: "submit" }, gettext("Save profile"));
  const form = h("form", { class: "profile", onsubmit: act(save, status, async () => {
    const saved = await api("PATCH", "users/me/info", {
      city: city.value, introduce: introduce.value, gender: gender.value, birthday: birthday.value || null,
    });
    onSaved(saved);
    message(status, gettext("Profile saved."), true);
  }) },
  h("label", { for: "profile-city" }, gettext("City")), city,
  h("label", { for: "profile-introduce" }, gettext("About you")), introduce,
  h("label", { for: "profile-gender" }, gettext("Gender")), gender,
  h("label", { for: "profile-birthday" }, gettext("Birthday")), birthday,
  h("p", {}, save), status);
  return h("details", { class: "card" }, h("summary", {}, gettext("Edit your profile")), form);
}

export async function followListPage(id, params, direction) {
  const show = screen();
  const me = session.user;
  const list = h("ul", { class: "people" });
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  let lastId = null;
  function row(item) {
    const person = item.user;
    const li = h("li", { class: "card" },
      h("img", { class: "avatar", src: person.icon || "", alt: "", hidden: !person.icon }),
      h("a", { href: `#/users/${person.id}` }, person.nick_name),
      h("span", { class: "muted" }, fmt(gettext(" · since %(time)s"), { time: when(item.followed_at) })));
    if (me && String(me.id) !== String(person.id)) {
      let following = item.is_following;
      const text = () => (following ? gettext("Following") : gettext("Follow"));
      const button = h("button", { type: "button", class: "secondary", "aria-pressed": String(following) }, text());
      button.addEventListener("click", act(button, status, async () => {
        following = (await api(following ? "DELETE" : "PUT", `follows/${person.id}`)).following;
        button.setAttribute("aria-pressed", String(following));
        button.textContent = text();
      }));
      li.append(" ", button);
    }
    return li;
  }
  async function load() {
    const data = await get(`users/${id}/${direction}${lastId ? `?last_id=${lastId}` : ""}`);
    list.append(...data.results.map(row));
    lastId = data.last_id;
    more.hidden = !lastId;
  }
  more.addEventListener("click", act(more, status, load));
  const [author] = await Promise.all([get(`users/${id}`), load()]);
  const title = direction === "followers"
    ? fmt(gettext("Followers of %(name)s"), { name: author.nick_name })
    : fmt(gettext("Followed by %(name)s"), { name: author.nick_name });
  show(h("h1", {}, title), h("p", {}, h("a", { href: `#/users/${id}` }, gettext("Back to the profile"))),
    list.children.length ? list : h("p", { class: "muted" }, gettext("Nobody yet.")), more, status);
}

export async function userPage(id) {
  const show = screen();
  const me = session.user;
  const other = Boolean(me) && String(me.id) !== String(id);
  const mine = Boolean(me) && String(me.id) === String(id);
  const [info, blogs, followState, myShops] = await Promise.all([
    get(`users/${id}/info`), get(`users/${id}/blogs`), other ? get(`follows/${id}`) : null,
    mine ? get("merchant/shops").catch(() => null) : null,
  ]);
  const user = blogs.user; // the blogs page names its author: no separate user request
  const avatar = h("img", { class: "avatar", src: user.icon || "", alt: fmt(gettext("%(name)s's picture"), { name: user.nick_name }), hidden: !user.icon });
  const about = h("p", { class: "muted", id: "about" }, aboutText(info));
  const nodes = [
    h("h1", {}, avatar, user.nick_name),
    about,
  ];
  if (myShops && myShops.count) { // a member of some shop's staff: its dashboard
    nodes.push(h("p", {}, h("a", { href: "#/merchant", class: "merchant-link" }, gettext("Merchant dashboard"))));
  }
  if (mine) {
    nodes.push(profileForm(info, (saved) => { about.textContent = aboutText(saved); }));
    const picker = picturePicker({ id: "avatar", label: gettext("Change your picture"), multiple: false, max: 1 });
    const save = h("button", { type: "button" }, gettext("Save picture"));
    const saveStatus = h("p", { class: "message", role: "status" });
    save.addEventListener("click", act(save, saveStatus, async () => {
      const [icon] = picker.pictures();
      if (picker.busy() || !icon) throw new ApiError(0, { detail: gettext("Choose a picture and wait for its upload.") });
      const updated = await api("PATCH", "users/me", { icon });
      avatar.src = updated.icon;
      avatar.hidden = false;
      message(saveStatus, gettext("Saved."), true);
    }));
    nodes.push(...picker.nodes, h("p", {}, save), saveStatus);
  }
  let fanCount = info.fans;
  const fansText = () => fmt(ngettext("%(count)s follower", "%(count)s followers", fanCount), { count: fanCount });
  const fans = h("span", {}, fansText());
  nodes.push(h("p", {}, h("a", { href: `#/users/${id}/followers` }, fans), " · ",
    h("a", { href: `#/users/${id}/following` }, fmt(gettext("%(count)s following"), { count: info.followee }))));
  if (other) {
    let following = followState.following;
    const followStatus = h("p", { class: "message", role: "status" });
    const followText = () => (following ? gettext("Following") : gettext("Follow"));
    const follow = h("button", { type: "button", "aria-pressed": String(following) }, followText());
    follow.addEventListener("click", act(follow, followStatus, async () => {
      const state = await api(following ? "DELETE" : "PUT", `follows/${id}`);
      if (state.following !== following) {
        fanCount += state.following ? 1 : -1;
        fans.textContent = fansText();
      }
      following = state.following;
      follow.setAttribute("aria-pressed", String(following));
      follow.textContent = followText();
    }));
    nodes.push(h("div", { class: "row" }, follow), followStatus);
  }
  nodes.push(h("h2", {}, fmt(gettext("Notes (%(count)s)"), { count: blogs.count })), blogs.results.map(blogCard));
  show(...nodes);
}
