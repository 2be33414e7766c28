// Who is logged in: the token and user kept in localStorage, the header's account link
// that shows it, and the detour to the login page for pages that need one.

import { fmt } from "./format.js";

export const session = {
  get token() { return localStorage.getItem("token"); },
  get user() { return JSON.parse(localStorage.getItem("user") || "null"); },
  save(token, user) {
    localStorage.setItem("token", token);
    localStorage.setItem("user", JSON.stringify(user));
  },
  clear() { localStorage.removeItem("token"); localStorage.removeItem("user"); },
};

export function renderAccountLink() {
  const link = document.getElementById("account-link");
  const user = session.user;
  if (session.token && user) {
    link.textContent = fmt(gettext("Log out (%(name)s)"), { name: user.nick_name });
    link.href = "#/logout";
  } else {
    link.textContent = gettext("Log in");
    link.href = "#/login";
  }
}

// Not logged in: off to the login page, which comes back here afterwards (true).
export function needLogin() {
  if (session.token) return false;
  location.hash = `#/login?next=${encodeURIComponent(location.hash)}`;
  return true;
}
