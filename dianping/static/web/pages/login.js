// Logging in with a phone number and a texted code.

import { act } from "../lib/act.js";
import { api } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { screen } from "../lib/screen.js";
import { renderAccountLink, session } from "../lib/session.js";

export async function loginPage(params) {
  const show = screen();
  const status = h("p", { class: "message", role: "status" });
  const phone = h("input", { id: "phone", name: "phone", type: "tel", inputmode: "numeric", autocomplete: "tel", placeholder: "13800000001" });
  const code = h("input", { id: "code", name: "code", inputmode: "numeric", autocomplete: "one-time-code", maxlength: "6" });
  const send = h("button", { type: "button", class: "secondary" }, gettext("Send code"));
  send.addEventListener("click", act(send, status, async () => {
    await api("POST", "auth/code", { phone: phone.value.trim() });
    message(status, gettext("Code sent. In development it is printed where the server runs (the make run terminal)."), true);
    code.focus();
  }));
  const submit = h("button", { type: "submit" }, gettext("Log in"));
  const form = h("form", { onsubmit: act(submit, status, async () => {
    const result = await api("POST", "auth/login", { phone: phone.value.trim(), code: code.value.trim() });
    session.save(result.token, result.user);
    renderAccountLink();
    location.hash = params.get("next") || "#/";
  }) },
  h("label", { for: "phone" }, gettext("Phone number")), h("div", { class: "row" }, phone, send),
  h("label", { for: "code" }, gettext("Code")), code,
  h("p", {}, submit));
  show(h("h1", {}, gettext("Log in")),
    h("p", { class: "muted" }, gettext("Any mainland mobile number works; a new number gets a new account. Demo users: 13800000001 … 13800000010.")),
    form, status);
}
