// The Dianping web client: hash-routed pages over the project's own JSON API.
// Plain JavaScript, no build step. Elements are built with h() (never innerHTML),
// so text from the API can never become markup.
"use strict";

const CITY_CENTRE = { x: 121.4737, y: 31.2304 }; // People's Square, Shanghai (demo data)
const app = () => document.getElementById("app");

// Every text goes through Django's JavaScript catalog (/jsi18n/, loaded before this file),
// which gives gettext, ngettext and interpolate in the page's language. Placeholders are
// named, so a translation may put them in another order: fmt(gettext("%(n)s left"), { n }).
const fmt = (text, values) => interpolate(text, values, true);

// --- session -------------------------------------------------------------------------

const session = {
  get token() { return localStorage.getItem("token"); },
  get user() { return JSON.parse(localStorage.getItem("user") || "null"); },
  save(token, user) {
    localStorage.setItem("token", token);
    localStorage.setItem("user", JSON.stringify(user));
  },
  clear() { localStorage.removeItem("token"); localStorage.removeItem("user"); },
};

function clientId() {
  // A stable anonymous id, so the shops' unique-visitor counts know a returning browser.
  let id = localStorage.getItem("client-id");
  if (!id) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("client-id", id);
  }
  return id;
}

// --- API -----------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.detail) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.body = body;
  }
}

async function api(method, path, body, extraHeaders = {}) {
  const headers = { "X-Client-Id": clientId(), ...extraHeaders };
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`/api/${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    if (response.status === 401 && session.token) {
      session.clear(); // expired or revoked: forget it, the next page asks to log in
      renderAccountLink();
    }
    throw new ApiError(response.status, data);
  }
  return data;
}

const get = (path) => api("GET", path);

// A picture upload (multipart, so not through api()), reporting progress from 0 to 1.
function uploadImage(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/uploads");
    xhr.setRequestHeader("X-Client-Id", clientId());
    if (session.token) xhr.setRequestHeader("Authorization", `Bearer ${session.token}`);
    xhr.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { /* not JSON: status says it */ }
      if (xhr.status === 201) { onProgress(1); resolve(data); } else reject(new ApiError(xhr.status, data));
    };
    xhr.onerror = () => reject(new ApiError(0, { detail: gettext("The upload failed: check your connection.") }));
    const form = new FormData();
    form.append("file", file);
    xhr.send(form);
  });
}

// A picker that uploads each chosen picture at once, with a preview and its progress.
// `pictures()` gives the uploaded URLs; `busy()` tells whether some are still on their way.
function picturePicker({ id, label, multiple, max }) {
  const input = h("input", { id, type: "file", accept: "image/jpeg,image/png,image/webp", multiple: multiple || undefined });
  const list = h("ul", { class: "pictures", "aria-label": gettext("Chosen pictures") });
  const status = h("p", { class: "message", role: "status" });
  const uploaded = [];
  let pending = 0;
  input.addEventListener("change", () => {
    // A single picture is replaced by the next one chosen; photos add up to `max`.
    const files = Array.from(input.files).slice(0, multiple ? max - uploaded.length - pending : 1);
    input.value = "";
    for (const file of files) {
      const progress = h("progress", { max: "1", value: "0", "aria-label": fmt(gettext("Uploading %(name)s"), { name: file.name }) });
      const preview = h("img", { src: URL.createObjectURL(file), alt: file.name, width: "96", height: "96" });
      const item = h("li", {}, preview, progress);
      if (!multiple) list.replaceChildren();
      list.append(item);
      pending += 1;
      uploadImage(file, (share) => { progress.value = share; }).then((picture) => {
        if (!multiple) uploaded.length = 0;
        uploaded.push(picture.url);
        progress.replaceWith(h("span", { class: "muted" }, gettext("uploaded")));
      }, (error) => {
        item.remove();
        message(status, explain(error));
      }).finally(() => { pending -= 1; });
    }
  });
  return {
    nodes: [h("label", { for: id }, label), input, list, status],
    pictures: () => [...uploaded],
    busy: () => pending > 0,
  };
}

// --- DOM helpers ---------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

let routeSeq = 0; // bumped by every navigation

function screen() {
  // A page's own renderer: a page still loading when the user navigates away must not
  // paint over the page that replaced it. Call at the page's start, before any await.
  const seq = routeSeq;
  return (...nodes) => { if (seq === routeSeq) render(...nodes); };
}

function render(...nodes) {
  const root = app();
  root.replaceChildren(...nodes.flat().filter((node) => node !== null && node !== undefined && node !== false));
  window.scrollTo(0, 0);
  root.focus({ preventScroll: true }); // screen readers start at the new page
}

function message(el, text, ok = false) {
  el.textContent = text;
  el.className = ok ? "message ok" : "message";
}

const money = (fen) => `¥${(fen / 100).toFixed(fen % 100 ? 2 : 0)}`;
// Times as the server counts them (its TIME_ZONE, on <body>), 24-hour, the same in every
// browser: "2026-11-24 16:31", whatever zone or locale the browser is in.
const SERVER_TIME = new Intl.DateTimeFormat("en-GB", {
  timeZone: document.body.dataset.timeZone || undefined, hourCycle: "h23",
  year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
});
function when(iso) {
  const part = Object.fromEntries(SERVER_TIME.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}`;
}

function discountText(voucher) {
  // What a coupon takes off, in the words of its discount rule (SPEC §3.4).
  const from = voucher.amount_condition
    ? fmt(gettext(" on bills from %(amount)s"), { amount: money(voucher.amount_condition) }) : "";
  if (voucher.discount_type === "full_reduction") {
    return fmt(gettext("%(amount)s off%(condition)s"), { amount: money(voucher.discount_amount), condition: from });
  }
  if (voucher.discount_type === "percentage") {
    const cap = voucher.max_discount ? fmt(gettext(", at most %(amount)s off"), { amount: money(voucher.max_discount) }) : "";
    // A rate of 85 is "15% off" in English and "8.5折" in Chinese: each language says it its way.
    return fmt(gettext("%(percent)s off%(condition)s%(cap)s"),
      { percent: `${100 - voucher.discount_rate}%`, rate: voucher.discount_rate / 10, condition: from, cap });
  }
  return fmt(gettext("%(amount)s off"), { amount: money(voucher.actual_value) });
}

// The API's states and kinds are codes; these are their names for people.
const ORDER_STATUSES = {
  unpaid: gettext("unpaid"), paid: gettext("paid"), used: gettext("used"),
  cancelled: gettext("cancelled"), refunded: gettext("refunded"),
};
const BILL_STATUSES = { paid: pgettext("a bill", "paid"), refunded: pgettext("a bill", "refunded") };
const REDEMPTION_KINDS = { redeem: gettext("code redeemed"), checkout: gettext("used at checkout") };
const named = (names, code) => names[code] || code; // a code the client has no name for: as is
const leftText = (left) => fmt(gettext("%(left)s left"), { left });

function validity(order) {
  // " · valid until …" and " · used …", as far as the order has them.
  return [
    order.expires_at ? fmt(gettext(" · valid until %(time)s"), { time: when(order.expires_at) }) : "",
    order.used_at ? fmt(gettext(" · used %(time)s"), { time: when(order.used_at) }) : "",
  ].join("");
}

function fen(yuanText) {
  // A bill typed in yuan ("128.5") as fen, or NaN when it is not a positive amount.
  if (!/^\d+(\.\d{1,2})?$/.test(yuanText.trim())) return NaN;
  const value = Math.round(Number(yuanText) * 100);
  return value > 0 ? value : NaN;
}

function qrCanvas(text, label) {
  // The redeem code as a QR code, drawn here (vendored qrcode-generator), never fetched.
  const code = qrcode(0, "M");
  code.addData(text);
  code.make();
  const cells = code.getModuleCount();
  const scale = 6;
  const margin = 4 * scale; // the quiet zone scanners need
  const canvas = h("canvas", { class: "qr", role: "img", "aria-label": label,
    width: String(cells * scale + 2 * margin), height: String(cells * scale + 2 * margin) });
  const pen = canvas.getContext("2d");
  pen.fillStyle = "#fff";
  pen.fillRect(0, 0, canvas.width, canvas.height);
  pen.fillStyle = "#000";
  for (let row = 0; row < cells; row++) {
    for (let col = 0; col < cells; col++) {
      if (code.isDark(row, col)) pen.fillRect(margin + col * scale, margin + row * scale, scale, scale);
    }
  }
  return canvas;
}

function idempotencyKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Answers worth saying differently from the server's own `detail`.
const CODE_MESSAGES = {
  sold_out: gettext("Sold out. Better luck next time!"),
  duplicate_order: gettext("You already bought this voucher: see My vouchers."),
  limit_reached: gettext("You already hold as many of these as allowed: see My vouchers."),
  coupon_used: gettext("That coupon has been used already."),
  coupon_expired: gettext("That coupon has expired."),
  code_not_found: gettext("No coupon of this shop has that code."),
};

function explain(error) {
  if (error instanceof ApiError) {
    if (error.status === 401) return gettext("Please log in first.");
    if (error.body && error.body.errors) {
      return Object.entries(error.body.errors).map(([field, problems]) => `${field}: ${problems.join(" ")}`).join(" ");
    }
    return CODE_MESSAGES[error.code] || error.message;
  }
  return gettext("Something went wrong; please try again.");
}

function act(button, status, work) {
  // Run a button's request: disabled while in flight (no double submits), errors shown
  // in `status`, an expired login sent to the login page. `work` returns true to leave
  // the button disabled for good (a one-time action done).
  return async (event) => {
    if (event) event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    let finished = false;
    try {
      finished = (await work()) === true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) needLogin();
      else message(status, explain(error));
    } finally {
      button.disabled = finished;
    }
  };
}

function needLogin() {
  if (session.token) return false;
  location.hash = `#/login?next=${encodeURIComponent(location.hash)}`;
  return true;
}

// A shop's score (rating x10) as stars and a number; "no ratings yet" before the first.
function scoreText(score) {
  return score ? fmt(gettext("★ %(score)s"), { score: (score / 10).toFixed(1) }) : gettext("No ratings yet");
}

function stars(rating) {
  return h("span", { class: "stars", role: "img", "aria-label": fmt(ngettext("%(n)s star", "%(n)s stars", rating), { n: rating }) },
    "★".repeat(rating) + "☆".repeat(5 - rating));
}

function blogCard(blog) {
  const picture = blog.images && blog.images.length ? blog.images[0] : null;
  return h("article", { class: picture ? "card shop" : "card" },
    picture ? h("img", { class: "thumb", src: picture, alt: "", loading: "lazy" }) : null,
    h("h3", {}, h("a", { href: `#/blogs/${blog.id}` }, blog.title)),
    blog.rating ? h("p", {}, stars(blog.rating)) : null,
    h("p", { class: "muted" },
      blog.user ? h("a", { href: `#/users/${blog.user.id}` }, blog.user.nick_name) : null,
      blog.user ? " · " : "", `♥ ${blog.liked}`, blog.is_liked ? gettext(" (you)") : ""),
    blog.excerpt || blog.content ? h("p", {}, (blog.excerpt || blog.content).slice(0, 120)) : null);
}

// --- pages ---------------------------------------------------------------------------

async function loginPage(params) {
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

async function homePage() {
  const show = screen();
  const [types, hot, seizing] = await Promise.all([
    get("shop-types"), get("blogs/hot"), get("vouchers/activities?tab=seizing").catch(() => []),
  ]);
  const search = h("input", { id: "search", name: "q", type: "search", maxlength: "64" });
  const searchForm = h("form", { role: "search", onsubmit: (event) => {
    event.preventDefault();
    if (search.value.trim()) location.hash = `#/search?q=${encodeURIComponent(search.value.trim())}`;
  } }, h("label", { for: "search" }, gettext("Search shops, notes and people")),
  h("div", { class: "row" }, search, h("button", { type: "submit" }, gettext("Search"))));
  show(
    h("h1", {}, gettext("Discover")),
    searchForm,
    h("nav", { class: "grid", "aria-label": gettext("Shop types") },
      types.map((t) => h("a", { href: `#/shops?type=${t.id}` }, t.name))),
    seizing.length ? h("section", {}, h("h2", {}, gettext("Flash sales on now")),
      seizing.map((v) => h("div", { class: "card" },
        h("h3", {}, h("a", { href: `#/shops/${v.shop_id}` }, v.title)),
        h("p", { class: "muted" }, fmt(gettext("%(price)s for %(value)s · %(left)s left"),
          { price: money(v.pay_value), value: money(v.actual_value), left: v.remaining ?? v.stock }))))) : null,
    h("h2", {}, gettext("Popular notes")),
    hot.results.map(blogCard));
  upcomingSales().then((section) => { if (section) app().insertBefore(section, app().querySelector(":scope > h2:last-of-type")); });
}

// Upcoming flash sales, each with a "remind me" toggle for a signed-in reader (a
// notification ten minutes before it starts).
async function upcomingSales() {
  const seq = routeSeq;
  const [upcoming, watched] = await Promise.all([
    get("vouchers/activities?tab=upcoming").catch(() => []),
    session.token ? get("vouchers/watched").catch(() => ({ voucher_ids: [] })) : { voucher_ids: [] },
  ]);
  if (seq !== routeSeq || !upcoming.length) return null;
  const watching = new Set(watched.voucher_ids);
  return h("section", {}, h("h2", {}, gettext("Flash sales coming up")),
    upcoming.slice(0, 5).map((v) => h("div", { class: "card" },
      h("h3", {}, h("a", { href: `#/shops/${v.shop_id}` }, v.title)),
      h("p", { class: "muted" }, fmt(gettext("Starts %(time)s"), { time: when(v.begin_time) })),
      watchToggle(v.id, watching.has(v.id)))));
}

function watchToggle(voucherId, initially) {
  let on = initially;
  const status = h("span", { class: "message", role: "status" });
  const button = h("button", { type: "button", class: "secondary", "aria-pressed": String(on) });
  const label = () => {
    button.textContent = on ? gettext("Reminder set") : gettext("Remind me");
    button.setAttribute("aria-pressed", String(on));
  };
  label();
  button.addEventListener("click", act(button, status, async () => {
    if (!session.token) { needLogin(); return false; }
    const result = await api(on ? "DELETE" : "PUT", `vouchers/${voucherId}/watch`);
    on = result.watching;
    label();
    return false;
  }));
  return h("div", { class: "row" }, button, status);
}

// The shop list's filters, as the API names them; the sorts each filter form offers.
const SHOP_FILTERS = ["area", "price_min", "price_max", "score_min", "sort"];

function shopFilters(initial, onApply) {
  const field = (name, label, input) => h("div", { class: "filter" }, h("label", { for: `filter-${name}` }, label), input);
  const number = (name, max) => h("input", { id: `filter-${name}`, name, type: "number", inputmode: "numeric", min: "0", max: String(max), value: initial[name] || "" });
  const choice = (name, options) => h("select", { id: `filter-${name}`, name },
    options.map(([value, label]) => h("option", { value, selected: (initial[name] || "") === value }, label)));
  const status = h("p", { class: "message", role: "status" });
  const form = h("form", { class: "filters", "aria-label": gettext("Filters"), onsubmit: (event) => {
    event.preventDefault();
    const values = {};
    for (const name of SHOP_FILTERS) {
      const value = form.elements[name].value.trim();
      if (value) values[name] = name === "score_min" ? String(Math.round(Number(value) * 10)) : value;
    }
    if (values.price_min && values.price_max && Number(values.price_min) > Number(values.price_max)) {
      message(status, gettext("The lowest price cannot be above the highest."));
      return;
    }
    message(status, "");
    onApply(values);
  } },
  h("div", { class: "row" },
    field("area", gettext("District"), h("input", { id: "filter-area", name: "area", maxlength: "64", value: initial.area || "", placeholder: gettext("e.g. 人民广场") })),
    field("price_min", gettext("Price from (¥)"), number("price_min", 1000000)),
    field("price_max", gettext("Price up to (¥)"), number("price_max", 1000000)),
    field("score_min", gettext("Score at least"), choice("score_min", [["", gettext("Any")], ["3", "★ 3.0"], ["3.5", "★ 3.5"], ["4", "★ 4.0"], ["4.5", "★ 4.5"]])),
    field("sort", gettext("Sort by"), choice("sort", [["", gettext("Default")], ["score", gettext("Best rated")], ["popular", gettext("Most popular")]]))),
  h("p", {}, h("button", { type: "submit", class: "secondary" }, gettext("Apply filters"))), status);
  return form;
}

async function shopsPage(params) {
  const show = screen();
  const typeId = params.get("type");
  const name = params.get("name");
  if (!typeId && !name) { location.hash = "#/"; return; }
  const list = h("div");
  const status = h("p", { class: "muted", role: "status" },
    name ? fmt(gettext("Shops matching “%(name)s”."), { name }) : gettext("Showing shops near the city centre."));
  let page = 1;
  let point = CITY_CENTRE;
  let filters = {};
  let generation = 0; // a reload (new location) makes answers of older loads stale
  const more = h("button", { type: "button", class: "secondary" }, gettext("More"));
  async function load(reset) {
    if (reset) { generation += 1; page = 1; list.replaceChildren(); }
    const mine = generation;
    const query = new URLSearchParams(name ? { name } : { type_id: typeId, x: point.x, y: point.y });
    for (const [key, value] of Object.entries(filters)) query.set(key, value);
    query.set("page", page);
    const data = await get(`shops?${query}`);
    if (mine !== generation) return;
    for (const shop of data.results) list.append(shopCard(shop));
    if (!data.results.length && page === 1) {
      list.append(h("p", {}, Object.keys(filters).length ? gettext("No shop matches these filters.")
        : name ? gettext("No shop has that name.") : gettext("No shops of this type within 5 km.")));
    }
    page += 1;
    more.hidden = !data.next;
  }
  more.addEventListener("click", act(more, status, () => load(false)));
  const locate = h("button", { type: "button", class: "secondary", hidden: Boolean(name), onclick: () => {
    if (!navigator.geolocation) { status.textContent = gettext("Location is not available; using the city centre."); return; }
    navigator.geolocation.getCurrentPosition(
      (pos) => {
        point = { x: pos.coords.longitude, y: pos.coords.latitude };
        status.textContent = gettext("Showing shops near you.");
        load(true).catch((error) => message(status, explain(error)));
      },
      () => { status.textContent = gettext("Location was refused; using the city centre."); },
      { timeout: 5000 });
  } }, gettext("Use my location"));
  const form = shopFilters({}, (values) => {
    filters = values;
    load(true).catch((error) => message(status, explain(error)));
  });
  show(h("h1", {}, name ? gettext("Search") : gettext("Shops nearby")), h("div", { class: "row" }, locate),
    h("details", { class: "card" }, h("summary", {}, gettext("Filter and sort")), form), status, list, more);
  await load(true);
}

function shopCard(shop, highlight) {
  return h("article", { class: "card shop" },
    shop.images.length ? h("img", { class: "thumb", src: shop.images[0], alt: "", loading: "lazy" }) : null,
    h("h3", {}, h("a", { href: `#/shops/${shop.id}` }, highlight ? marked(highlight.name) : shop.name)),
    h("p", { class: "muted" }, highlight ? [marked(highlight.area), " · ", marked(highlight.address)] : `${shop.area} · ${shop.address}`),
    h("p", {}, fmt(gettext("¥%(price)s/person · %(score)s"), { price: shop.avg_price, score: scoreText(shop.score) }),
      shop.distance === undefined ? "" : fmt(gettext(" · %(metres)s m"), { metres: Math.round(shop.distance) })));
}

// A search hit's field: its fragments as text nodes, the matched ones inside <mark>. The
// text never becomes markup (h() makes text nodes).
function marked(fragments) {
  return (fragments || []).map((part) => (part.hit ? h("mark", {}, part.text) : part.text));
}

const SEARCH_KINDS = [["shops", () => gettext("Shops")], ["notes", () => gettext("Notes")], ["users", () => gettext("People")]];

async function searchPage(params) {
  const show = screen();
  const q = (params.get("q") || "").trim();
  const kind = SEARCH_KINDS.some(([key]) => key === params.get("kind")) ? params.get("kind") : "shops";
  const box = h("input", { id: "search", name: "q", type: "search", maxlength: "64", value: q });
  const form = h("form", { role: "search", onsubmit: (event) => {
    event.preventDefault();
    if (box.value.trim()) location.hash = `#/search?q=${encodeURIComponent(box.value.trim())}&kind=${kind}`;
  } }, h("label", { for: "search" }, gettext("Search shops, notes and people")),
  h("div", { class: "row" }, box, h("button", { type: "submit" }, gettext("Search"))));
  const tabs = h("div", { class: "tabs", role: "tablist" }, SEARCH_KINDS.map(([key, label]) =>
    h("button", { type: "button", role: "tab", "aria-selected": String(key === kind),
      onclick: () => { location.hash = `#/search?q=${encodeURIComponent(q)}&kind=${key}`; } }, label())));
  const list = h("div", { role: "tabpanel" });
  const status = h("p", { class: "muted", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  if (!q) { show(h("h1", {}, gettext("Search")), form); return; }
  let page = 1;
  async function load() {
    const data = await get(`search?${new URLSearchParams({ q, kind, page })}`);
    if (page === 1) status.textContent = fmt(ngettext("%(count)s result for “%(q)s”.", "%(count)s results for “%(q)s”.", data.count), { count: data.count, q });
    for (const hit of data.results) list.append(searchHit(kind, hit));
    page += 1;
    more.hidden = !data.next;
  }
  more.addEventListener("click", act(more, status, load));
  try {
    await load();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    message(status, explain(error));
  }
  show(h("h1", {}, gettext("Search")), form, tabs, status, list, more);
}

function searchHit(kind, hit) {
  if (kind === "shops") return shopCard(hit, hit.highlight);
  if (kind === "users") {
    return h("article", { class: "card" },
      hit.icon ? h("img", { class: "avatar", src: hit.icon, alt: "" }) : null,
      h("a", { href: `#/users/${hit.id}` }, marked(hit.highlight.nick_name)));
  }
  return h("article", { class: "card" },
    h("h3", {}, h("a", { href: `#/blogs/${hit.id}` }, marked(hit.highlight.title))),
    h("p", { class: "muted" }, h("a", { href: `#/users/${hit.user.id}` }, hit.user.nick_name), ` · ♥ ${hit.liked}`),
    h("p", {}, marked(hit.highlight.content)));
}

function countdown(el, beginIso, done) {
  const tick = () => {
    const left = Math.max(0, Math.round((new Date(beginIso) - Date.now()) / 1000));
    el.textContent = fmt(gettext("Starts in %(h)sh %(m)sm %(s)ss"),
      { h: Math.floor(left / 3600), m: Math.floor(left / 60) % 60, s: left % 60 });
    if (left === 0) { clearInterval(timer); done(); }
  };
  const timer = setInterval(() => (el.isConnected ? tick() : clearInterval(timer)), 1000);
  tick();
}

function voucherCard(voucher) {
  const status = h("p", { class: "message", role: "status" });
  const price = voucher.pay_value ? money(voucher.pay_value) : gettext("Free");
  const card = h("article", { class: "card" },
    h("h3", {}, voucher.title),
    h("p", {}, `${price} · ${discountText(voucher)}`, voucher.sub_title ? ` · ${voucher.sub_title}` : ""));
  if (voucher.type !== "seckill") return claimable(card, voucher, status);
  let left = voucher.remaining ?? voucher.stock;
  const stock = h("span", {}, leftText(left));
  const grab = h("button", { type: "button" }, gettext("Grab"));
  grab.addEventListener("click", act(grab, status, async () => {
    if (needLogin()) return;
    const result = await api("POST", `vouchers/${voucher.id}/seckill`);
    message(status, fmt(gettext("Got it! Order %(order)s. Pay for it in My vouchers."), { order: result.order_id }), true);
    left = Math.max(0, left - 1);
    stock.textContent = leftText(left);
  }));
  const info = h("p", { class: "muted" }, stock, fmt(gettext(" · ends %(time)s"), { time: when(voucher.end_time) }));
  card.append(info);
  if (voucher.status === "pending") {
    const clock = h("p", { class: "muted" });
    grab.disabled = true;
    countdown(clock, voucher.begin_time, () => { grab.disabled = false; });
    card.append(clock);
  } else if (voucher.status !== "active") {
    grab.disabled = true;
    message(status, gettext("This sale has ended."));
  }
  card.append(h("div", { class: "row" }, grab), status);
  return card;
}

function claimable(card, voucher, status) {
  // An everyday voucher: taken with "Get", free ones ready at once, priced ones to pay.
  if (voucher.remaining !== null && voucher.remaining !== undefined) {
    card.append(h("p", { class: "muted" }, leftText(voucher.remaining)));
  }
  const get = h("button", { type: "button" }, gettext("Get"));
  get.addEventListener("click", act(get, status, async () => {
    if (needLogin()) return;
    const result = await api("POST", `vouchers/${voucher.id}/claim`);
    const next = voucher.pay_value ? gettext("Got it! Pay for it in My vouchers.") : gettext("Got it! It is in My vouchers.");
    status.replaceChildren(`${next} `, h("a", { href: `#/orders/${result.order_id}` }, gettext("Show it")));
    status.className = "message ok";
  }));
  card.append(h("div", { class: "row" }, get), status);
  return card;
}

// How many ratings gave each number of stars, 5 down to 1, as bars.
function histogram(shop) {
  const ratings = shop.ratings || [0, 0, 0, 0, 0]; // a document cached before ratings existed
  const total = ratings.reduce((a, b) => a + b, 0);
  return h("dl", { class: "histogram", "aria-label": gettext("Ratings") }, [5, 4, 3, 2, 1].map((n) => {
    const count = ratings[n - 1];
    return h("div", { class: "bar" },
      h("dt", {}, fmt(ngettext("%(n)s star", "%(n)s stars", n), { n })),
      h("dd", {}, h("meter", { min: "0", max: String(total || 1), value: String(count) }), ` ${count}`));
  }));
}

// A shop's reviews, newest or most liked first, a page at a time.
function reviewList(shopId) {
  const list = h("div");
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More reviews"));
  let sort = "new";
  let page = 1;
  let generation = 0;
  async function load(reset) {
    if (reset) { generation += 1; page = 1; list.replaceChildren(); }
    const mine = generation;
    const data = await get(`shops/${shopId}/reviews?sort=${sort}&page=${page}`);
    if (mine !== generation) return;
    list.append(...data.results.map(blogCard));
    if (!data.results.length && page === 1) list.append(h("p", {}, gettext("No reviews yet: be the first.")));
    page += 1;
    more.hidden = !data.next;
  }
  const sorts = h("div", { class: "row", role: "group", "aria-label": gettext("Order") }, [["new", gettext("Newest")], ["liked", gettext("Most liked")]].map(([value, label]) => {
    const button = h("button", { type: "button", class: "secondary", "aria-pressed": String(value === sort) }, label);
    button.addEventListener("click", act(button, status, async () => {
      sort = value;
      for (const other of sorts.children) other.setAttribute("aria-pressed", String(other === button));
      await load(true);
    }));
    return button;
  }));
  more.addEventListener("click", act(more, status, () => load(false)));
  return { nodes: [sorts, list, more, status], load };
}

async function shopPage(id) {
  const show = screen();
  const reviews = reviewList(id);
  const [shop, vouchers, nearby] = await Promise.all(
    [get(`shops/${id}`), get(`shops/${id}/vouchers`), get(`shops/${id}/nearby?radius=1000`), reviews.load(true)]);
  show(
    shop.images.length ? h("img", { class: "cover", src: shop.images[0], alt: `${shop.name}` }) : null,
    h("h1", {}, shop.name),
    h("p", { class: "muted" }, `${shop.area} · ${shop.address}`),
    h("p", {}, fmt(gettext("¥%(price)s/person · %(score)s · open %(hours)s"),
      { price: shop.avg_price, score: scoreText(shop.score), hours: shop.open_hours || "—" })),
    h("p", {}, h("a", { href: `#/checkout?shop=${shop.id}` }, gettext("Pay a bill here, with a coupon"))),
    h("h2", {}, gettext("Vouchers")),
    vouchers.length ? vouchers.map(voucherCard) : h("p", {}, gettext("No vouchers for this shop.")),
    h("section", { "aria-label": gettext("Nearby") },
      h("h2", {}, gettext("Nearby, within 1 km")),
      nearby.results.length
        ? h("ul", { class: "nearby" }, nearby.results.map((near) => h("li", {},
          h("a", { href: `#/shops/${near.id}` }, near.name), fmt(gettext(" · %(metres)s m"), { metres: Math.round(near.distance) }))))
        : h("p", {}, gettext("No shops of this kind within 1 km."))),
    h("section", { "aria-label": gettext("Reviews") },
      h("h2", {}, fmt(ngettext("%(count)s review", "%(count)s reviews", shop.comments), { count: shop.comments })),
      histogram(shop),
      h("p", {}, h("a", { href: `#/write?shop=${shop.id}` }, gettext("Write a review"))),
      ...reviews.nodes));
}

async function vouchersPage(params) {
  const show = screen();
  if (needLogin()) return;
  const tabs = [["unpaid", gettext("To pay")], ["unused", gettext("Unused")], ["used", gettext("Used")], ["expired", gettext("Expired")],
    ["cancelled", gettext("Cancelled")], ["refunded", gettext("Refunded")]];
  const current = params.get("tab") || "unpaid";
  const list = h("div");
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  let lastId = null;
  function orderRow(order) {
    const row = h("article", { class: "card" },
      h("h3", {}, h("a", { href: `#/orders/${order.id}` }, order.voucher.title)),
      h("p", { class: "muted" }, `${discountText(order.voucher)} · ${named(ORDER_STATUSES, order.status)}`, validity(order),
        order.cancelled_at ? fmt(gettext(" · cancelled %(time)s"), { time: when(order.cancelled_at) }) : "",
        order.refunded_at ? fmt(gettext(" · refunded %(time)s"), { time: when(order.refunded_at) }) : ""));
    if (order.status === "unpaid") {
      const pay = h("button", { type: "button" }, fmt(gettext("Pay %(amount)s"), { amount: money(order.voucher.pay_value) }));
      pay.addEventListener("click", act(pay, status, async () => {
        await api("POST", `voucher-orders/${order.id}/pay`);
        message(status, gettext("Paid. Find it under Unused."), true);
        row.remove();
      }));
      const cancel = h("button", { type: "button", class: "secondary" }, gettext("Cancel"));
      cancel.addEventListener("click", act(cancel, status, async () => {
        await api("POST", `voucher-orders/${order.id}/cancel`);
        message(status, gettext("Cancelled."), true);
        row.remove();
      }));
      row.append(h("div", { class: "row" }, pay, cancel));
    } else if (order.status === "paid") {
      row.append(h("div", { class: "row" }, h("a", { href: `#/orders/${order.id}` }, gettext("Show the code")),
        h("a", { href: `#/checkout?shop=${order.voucher.shop_id}` }, gettext("Use it at the shop"))));
    }
    return row;
  }
  async function load() {
    const data = await get(`voucher-orders?status=${current}${lastId ? `&last_id=${lastId}` : ""}`);
    list.append(...data.results.map(orderRow));
    lastId = data.last_id;
    more.hidden = !lastId;
    if (!list.children.length) list.append(h("p", {}, gettext("Nothing here yet. Grab a flash sale from the home page.")));
  }
  more.addEventListener("click", act(more, status, load));
  await load();
  show(h("h1", {}, gettext("My vouchers")),
    h("p", {}, h("a", { href: "#/bills" }, gettext("My bills at shops"))),
    h("div", { class: "tabs", role: "tablist" }, tabs.map(([key, label]) =>
      h("button", { type: "button", role: "tab", "aria-selected": String(key === current),
        onclick: () => { location.hash = `#/vouchers?tab=${key}`; } }, label))),
    status, list, more);
}

async function orderPage(id, _params, note = "") {
  const show = screen();
  if (needLogin()) return;
  const order = await get(`voucher-orders/${id}`);
  const status = h("p", { class: note ? "message ok" : "message", role: "status" }, note);
  const buttons = [];
  const move = (label, path, done, secondary = false) => {
    const button = h("button", { type: "button", class: secondary ? "secondary" : undefined }, label);
    button.addEventListener("click", act(button, status, async () => {
      await api("POST", `voucher-orders/${id}/${path}`);
      await orderPage(id, null, done); // drawn again in its new state
      return true;
    }));
    buttons.push(button);
  };
  if (order.status === "unpaid") {
    move(fmt(gettext("Pay %(amount)s"), { amount: money(order.voucher.pay_value) }), "pay", gettext("Paid."));
    move(gettext("Cancel"), "cancel", gettext("Cancelled: the voucher is back on offer."), true);
  } else if (order.status === "paid") {
    move(gettext("Refund"), "refund", gettext("Refunded."), true);
  }
  const code = order.redeem_code;
  const readable = code ? code.replace(/(\d{4})(?=\d)/g, "$1 ") : null;
  show(
    h("h1", {}, order.voucher.title),
    h("p", {}, discountText(order.voucher)),
    h("p", { class: "muted" }, fmt(gettext("Order %(order)s · %(status)s"), { order: order.id, status: named(ORDER_STATUSES, order.status) }),
      validity(order)),
    code && order.status === "paid" ? h("section", { class: "card redeem" },
      h("h2", {}, gettext("Show this at the shop")),
      h("p", { class: "code", "aria-label": gettext("Redeem code") }, readable),
      qrCanvas(code, fmt(gettext("QR code of redeem code %(code)s"), { code: readable })),
      h("p", { class: "muted" }, gettext("Only you can see this code. Staff scan it or type it in to redeem the coupon."))) : null,
    order.status === "paid" ? h("p", {}, h("a", { href: `#/checkout?shop=${order.voucher.shop_id}` }, gettext("Or use it on a bill you pay here"))) : null,
    buttons.length ? h("div", { class: "row" }, buttons) : null,
    status);
}

async function checkoutPage(params) {
  const show = screen();
  if (needLogin()) return;
  const shopId = params.get("shop");
  if (!shopId) { location.hash = "#/"; return; }
  const shop = await get(`shops/${shopId}`);
  const status = h("p", { class: "message", role: "status" });
  const amount = h("input", { id: "amount", name: "amount", inputmode: "decimal", placeholder: "128.50", autocomplete: "off" });
  const look = h("button", { type: "submit", class: "secondary" }, gettext("Find my coupons"));
  const choices = h("fieldset", { class: "coupons", hidden: true }, h("legend", {}, gettext("Coupon")));
  const summary = h("p", { class: "summary", role: "status" });
  const pay = h("button", { type: "button", hidden: true }, gettext("Pay"));
  const result = h("div");
  let bill = NaN;
  let options = [];
  let key = idempotencyKey(); // one per bill: a retried Pay never pays twice
  const chosen = () => {
    const picked = choices.querySelector("input:checked");
    return options.find((o) => o.id === (picked && picked.value)) || null;
  };
  const refresh = () => {
    const coupon = chosen();
    const off = coupon ? coupon.discount : 0;
    summary.textContent = fmt(gettext("Bill %(bill)s · coupon −%(off)s · you pay %(pay)s"),
      { bill: money(bill), off: money(off), pay: money(bill - off) });
    pay.textContent = fmt(gettext("Pay %(amount)s"), { amount: money(bill - off) });
    key = idempotencyKey();
  };
  const form = h("form", { onsubmit: act(look, status, async () => {
    message(status, "");
    bill = fen(amount.value);
    if (Number.isNaN(bill)) { message(status, gettext("Type the bill in yuan, e.g. 128.50.")); return; }
    const found = await get(`coupons/usable?shop_id=${shopId}&amount=${bill}`);
    options = found.usable;
    const radio = (value, checked, disabled, text) => h("label", { class: "choice" },
      h("input", { type: "radio", name: "coupon", value, checked, disabled, onchange: refresh }), text);
    choices.replaceChildren(h("legend", {}, gettext("Coupon")),
      ...found.usable.map((c, i) => radio(c.id, i === 0, false,
        `${c.voucher.title}: −${money(c.discount)}${i === 0 ? gettext(" (best)") : ""}`)),
      radio("", !found.usable.length, false, gettext("No coupon")),
      ...found.unusable.map((c) => radio(c.id, false, true,
        fmt(gettext("%(title)s: needs a bill of %(amount)s"), { title: c.voucher.title, amount: money(c.voucher.amount_condition) }))));
    choices.hidden = false;
    pay.hidden = false;
    refresh();
  }) }, h("label", { for: "amount" }, gettext("Bill (yuan)")), h("div", { class: "row" }, amount, look));
  pay.addEventListener("click", act(pay, status, async () => {
    const coupon = chosen();
    const body = { shop_id: Number(shopId), amount: bill };
    if (coupon) body.coupon_id = coupon.id;
    const order = await api("POST", "shop-orders", body, { "Idempotency-Key": key });
    result.replaceChildren(billCard(order, status));
    message(status, order.discount
      ? fmt(gettext("Paid %(paid)s, %(off)s off with your coupon."), { paid: money(order.payable), off: money(order.discount) })
      : fmt(gettext("Paid %(paid)s."), { paid: money(order.payable) }), true);
    choices.hidden = true;
    return true;
  }));
  show(h("h1", {}, fmt(gettext("Pay at %(shop)s"), { shop: shop.name })), form, choices, summary, h("div", { class: "row" }, pay), status, result);
}

function billCard(order, status) {
  const card = h("article", { class: "card" },
    h("h3", {}, fmt(gettext("%(amount)s paid"), { amount: money(order.payable) })),
    h("p", { class: "muted" }, fmt(gettext("Bill %(bill)s · discount %(off)s · %(status)s · %(time)s"),
      { bill: money(order.amount), off: money(order.discount), status: named(BILL_STATUSES, order.status), time: when(order.created_at) })));
  if (order.status === "paid") {
    const refund = h("button", { type: "button", class: "secondary" }, gettext("Refund"));
    refund.addEventListener("click", act(refund, status, async () => {
      const refunded = await api("POST", `shop-orders/${order.id}/refund`);
      card.replaceWith(billCard(refunded, status));
      message(status, refunded.coupon_id ? gettext("Refunded; your coupon is back if it is still valid.") : gettext("Refunded."), true);
      return true;
    }));
    card.append(h("div", { class: "row" }, refund));
  }
  return card;
}

async function billsPage() {
  const show = screen();
  if (needLogin()) return;
  const list = h("div");
  const status = h("p", { class: "message", role: "status" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, gettext("More"));
  let lastId = null;
  async function load() {
    const data = await get(`shop-orders${lastId ? `?last_id=${lastId}` : ""}`);
    list.append(...data.results.map((order) => billCard(order, status)));
    lastId = data.last_id;
    more.hidden = !lastId;
    if (!list.children.length) list.append(h("p", {}, gettext("No bills yet.")));
  }
  more.addEventListener("click", act(more, status, load));
  await load();
  show(h("h1", {}, gettext("My bills")), status, list, more);
}

async function redeemPage() {
  const show = screen();
  if (needLogin()) return;
  const status = h("p", { class: "message", role: "status" });
  const code = h("input", { id: "redeem-code", name: "code", inputmode: "numeric", maxlength: "14", autocomplete: "off", placeholder: "1234 5678 9012" });
  const amount = h("input", { id: "redeem-amount", name: "amount", inputmode: "decimal", autocomplete: "off" });
  const submit = h("button", { type: "submit" }, gettext("Redeem"));
  const today = h("section");
  async function listToday(shopId) {
    const page = await get(`shops/${shopId}/redemptions`);
    today.replaceChildren(h("h2", {}, fmt(gettext("Today at this shop (%(count)s)"), { count: page.count })),
      ...page.results.map((w) => h("p", { class: "card" },
        fmt(gettext("%(time)s · %(kind)s · −%(off)s · order %(order)s"),
          { time: when(w.redeemed_at), kind: named(REDEMPTION_KINDS, w.kind), off: money(w.discount), order: w.order_id }),
        w.reversed_at ? gettext(" · reversed") : "")));
  }
  const form = h("form", { onsubmit: act(submit, status, async () => {
    const body = { code: code.value.replace(/\s+/g, "") };
    if (amount.value.trim()) {
      body.amount = fen(amount.value);
      if (Number.isNaN(body.amount)) { message(status, gettext("Type the bill in yuan, e.g. 128.50.")); return; }
    }
    const done = await api("POST", "redemptions", body);
    message(status, fmt(gettext("Redeemed: −%(off)s (order %(order)s)."), { off: money(done.discount), order: done.order_id }), true);
    code.value = "";
    amount.value = "";
    await listToday(done.shop_id);
  }) },
  h("label", { for: "redeem-code" }, gettext("Coupon code (12 digits)")), code,
  h("label", { for: "redeem-amount" }, gettext("Bill in yuan (for 满减 and 折扣 coupons)")), amount,
  h("p", {}, submit));
  show(h("h1", {}, gettext("Redeem a coupon")),
    h("p", { class: "muted" }, gettext("For shop staff: type the code the customer shows, or scan their QR code into the field.")),
    form, status, today);
}

const REPORT_REASONS = [
  ["spam", gettext("Spam or advertising")], ["abuse", gettext("Abuse or harassment")],
  ["illegal", gettext("Illegal content")], ["sexual", gettext("Sexual content")],
  ["fake", gettext("Fake review")], ["other", gettext("Something else")],
];

function reportControl(kind, targetId) {
  // "Report" opens a small form: a reason and, optionally, a few words for the moderators.
  const box = h("div", { class: "report" });
  const status = h("p", { class: "message", role: "status" });
  const open = h("button", { type: "button", class: "link" }, kind === "blog" ? gettext("Report this note") : gettext("Report"));
  open.addEventListener("click", () => {
    if (needLogin()) return;
    const formId = `report-${kind}-${targetId}`;
    const reason = h("select", { id: `${formId}-reason`, name: "reason" },
      REPORT_REASONS.map(([value, label]) => h("option", { value }, label)));
    const text = h("input", { id: `${formId}-text`, name: "text", maxlength: "500" });
    const send = h("button", { type: "submit" }, gettext("Send report"));
    const form = h("form", { onsubmit: act(send, status, async () => {
      const body = { kind, id: targetId, reason: reason.value };
      if (text.value.trim()) body.text = text.value;
      await api("POST", "reports", body);
      form.remove();
      message(status, gettext("Thank you: the moderators will look at it."), true);
      return true;
    }) },
    h("label", { for: `${formId}-reason` }, gettext("Why?")), reason,
    h("label", { for: `${formId}-text` }, gettext("Details (optional)")), text,
    h("p", {}, send));
    open.replaceWith(form);
  });
  box.append(open, status);
  return box;
}

async function blogPage(id) {
  const show = screen();
  const [blog, likers, comments] = await Promise.all([
    get(`blogs/${id}`), get(`blogs/${id}/likes`), get(`blogs/${id}/comments`),
  ]);
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
    h("p", {}, blog.content),
    blog.images.length ? h("div", { class: "photos" }, blog.images.map((url, i) =>
      h("img", { src: url, alt: fmt(gettext("Photo %(n)s of %(title)s"), { n: i + 1, title: blog.title }), loading: "lazy" }))) : null,
    h("div", { class: "row" }, like, count), likeStatus,
    me && String(me.id) === String(blog.user.id) ? null : reportControl("blog", blog.id),
    h("h2", {}, gettext("First to like")), top,
    commentsTitle, commentList, form, status);
}

// Five radio buttons styled as stars, and "no rating": a note about a shop may rate it.
function starPicker() {
  const group = h("fieldset", { class: "star-picker" }, h("legend", {}, gettext("Your rating")));
  for (const n of [0, 1, 2, 3, 4, 5]) {
    const input = h("input", { type: "radio", name: "rating", id: `rating-${n}`, value: String(n), checked: n === 0 });
    const label = n ? fmt(ngettext("%(n)s star", "%(n)s stars", n), { n }) : gettext("No rating");
    group.append(h("label", { for: `rating-${n}` }, input, ` ${label}`));
  }
  return { node: group, value: () => Number(group.querySelector("input:checked").value) || null };
}

async function writePage(params) {
  const show = screen();
  if (needLogin()) return;
  const shopId = params.get("shop");
  const shop = shopId ? await get(`shops/${encodeURIComponent(shopId)}`) : null;
  const rating = shop ? starPicker() : null;
  const title = h("input", { id: "title", name: "title", maxlength: "128", required: true });
  const content = h("textarea", { id: "content", name: "content", maxlength: "5000", required: true });
  const photos = picturePicker({ id: "photos", label: gettext("Photos (up to 9)"), multiple: true, max: 9 });
  const status = h("p", { class: "message", role: "status" });
  const publish = h("button", { type: "submit" }, gettext("Publish"));
  // One key per note being written: a retry after a lost answer publishes it once.
  const key = idempotencyKey();
  show(h("h1", {}, shop ? fmt(gettext("Review %(shop)s"), { shop: shop.name }) : gettext("Write a note")), h("form", { onsubmit: act(publish, status, async () => {
    if (photos.busy()) throw new ApiError(0, { detail: gettext("Wait until your photos are uploaded.") });
    const body = { title: title.value, content: content.value, images: photos.pictures() };
    if (shop) Object.assign(body, { shop_id: shop.id, rating: rating.value() });
    const blog = await api("POST", "blogs", body, { "Idempotency-Key": key });
    location.hash = `#/blogs/${blog.id}`;
    return true; // published: leaving the page, never twice
  }) },
  h("label", { for: "title" }, gettext("Title")), title,
  h("label", { for: "content" }, gettext("What was it like?")), content,
  rating ? rating.node : null,
  ...photos.nodes,
  h("p", {}, publish)), status);
}

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

async function followListPage(id, params, direction) {
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

async function userPage(id) {
  const show = screen();
  const me = session.user;
  const other = Boolean(me) && String(me.id) !== String(id);
  const [info, blogs, followState] = await Promise.all([
    get(`users/${id}/info`), get(`users/${id}/blogs`), other ? get(`follows/${id}`) : null,
  ]);
  const user = blogs.user; // the blogs page names its author: no separate user request
  const avatar = h("img", { class: "avatar", src: user.icon || "", alt: fmt(gettext("%(name)s's picture"), { name: user.nick_name }), hidden: !user.icon });
  const about = h("p", { class: "muted", id: "about" }, aboutText(info));
  const nodes = [
    h("h1", {}, avatar, user.nick_name),
    about,
  ];
  if (me && String(me.id) === String(id)) {
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

async function feedPage() {
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

async function signPage() {
  const show = screen();
  if (needLogin()) return;
  // The month is the server's (days count in its time zone), not the browser's.
  const [streak, current] = await Promise.all([get("sign/streak"), get("sign/month")]);
  const [year, monthNumber] = current.month.split("-").map(Number);
  // One sentence for translators, the number drawn large where the sentence puts it.
  const streakEl = h("span", { class: "stat" });
  const streakLine = h("p");
  const showStreak = (days) => {
    streakEl.textContent = String(days);
    const [before, after] = ngettext("Streak: %(count)s day", "Streak: %(count)s days", days).split("%(count)s");
    streakLine.replaceChildren(before, streakEl, after);
  };
  showStreak(streak.streak);
  const calendar = h("ol", { class: "calendar", "aria-label": fmt(gettext("Sign-ins in %(month)s"), { month: current.month }) });
  const status = h("p", { class: "message", role: "status" });
  function drawCalendar(signed) {
    const total = new Date(year, monthNumber, 0).getDate();
    const offset = (new Date(year, monthNumber - 1, 1).getDay() + 6) % 7; // Monday first
    const weekdays = [gettext("Mon"), gettext("Tue"), gettext("Wed"), gettext("Thu"), gettext("Fri"), gettext("Sat"), gettext("Sun")];
    const cells = weekdays.map((d) => h("li", { class: "head", "aria-hidden": "true" }, d));
    for (let i = 0; i < offset; i++) cells.push(h("li", { "aria-hidden": "true" }));
    for (let d = 1; d <= total; d++) {
      const on = signed.includes(d);
      const label = `${current.month}-${String(d).padStart(2, "0")}${on ? gettext(", signed") : ""}`;
      cells.push(h("li", { class: on ? "day signed" : "day", "aria-label": label }, String(d)));
    }
    calendar.replaceChildren(...cells);
  }
  const signedDays = [...current.days];
  drawCalendar(signedDays);
  const button = h("button", { type: "button", disabled: streak.signed_today },
    streak.signed_today ? gettext("Signed today") : gettext("Sign in today"));
  button.addEventListener("click", act(button, status, async () => {
    const result = await api("POST", "sign");
    showStreak(result.streak);
    message(status, result.new ? gettext("Signed! Come back tomorrow to keep the streak.") : gettext("Already signed today."), true);
    button.textContent = gettext("Signed today");
    const day = Number(result.date.slice(8, 10)); // the server's day, "YYYY-MM-DD"
    if (result.date.startsWith(current.month) && !signedDays.includes(day)) {
      signedDays.push(day);
      drawCalendar(signedDays);
    }
    return true;
  }));
  const title = new Date(year, monthNumber - 1, 1).toLocaleString(document.documentElement.lang, { month: "long", year: "numeric" });
  show(h("h1", {}, gettext("Daily sign-in")), streakLine, h("div", { class: "row" }, button), status,
    h("h2", {}, title), calendar);
}

// --- notifications -------------------------------------------------------------------

function notificationText(n) {
  const who = n.actor ? n.actor.nick_name : "";
  const title = (n.blog && n.blog.title) || (n.voucher && n.voucher.title) || "";
  switch (n.kind) {
    case "followed": return fmt(gettext("%(who)s followed you"), { who });
    case "liked": return fmt(gettext("%(who)s liked your note “%(title)s”"), { who, title });
    case "commented": return fmt(gettext("%(who)s commented on “%(title)s”: %(text)s"),
      { who, title, text: n.comment ? n.comment.content : "" });
    case "coupon_expiring": return fmt(gettext("Your coupon “%(title)s” expires within 24 hours"), { title });
    case "order_cancelled": return fmt(gettext("Your unpaid order for “%(title)s” was cancelled"), { title });
    case "sale_starting": return fmt(gettext("The flash sale “%(title)s” starts soon"), { title });
    default: return n.kind;
  }
}

function notificationLink(n) {
  if (n.blog) return `#/blogs/${n.blog.id}`;
  if (n.order_id && n.kind === "coupon_expiring") return `#/orders/${n.order_id}`;
  if (n.kind === "order_cancelled") return "#/vouchers";
  if (n.kind === "followed" && n.actor) return `#/users/${n.actor.id}`;
  return "#/";
}

function notificationCard(n) {
  return h("div", { class: n.read ? "card notification" : "card notification unread" },
    h("a", { href: notificationLink(n) }, notificationText(n)),
    h("p", { class: "muted" }, when(n.created_at), n.read ? "" : ` · ${gettext("new")}`));
}

async function notificationsPage() {
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
  show(h("h1", {}, gettext("Notifications")), h("div", { class: "row" }, markAll), status,
    page.results.length ? list : h("p", { class: "muted" }, gettext("Nothing yet.")), more);
}

// The bell: its badge counts unread notifications, asked on every navigation and every
// 30 s while the page is visible (a hidden tab asks nothing).
function showUnread(count) {
  const badge = document.getElementById("bell-count");
  badge.textContent = count > 99 ? "99+" : String(count);
  badge.hidden = !count;
  document.getElementById("bell").setAttribute("aria-label",
    fmt(ngettext("Notifications (%(n)s unread)", "Notifications (%(n)s unread)", count), { n: count }));
}

async function refreshBell() {
  const bell = document.getElementById("bell");
  bell.hidden = !session.token;
  if (!session.token) return;
  const result = await get("notifications/unread-count").catch(() => null);
  if (result) showUnread(result.unread);
}

setInterval(() => { if (document.visibilityState === "visible") refreshBell(); }, 30000);
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") refreshBell(); });

// --- routing -------------------------------------------------------------------------

const ROUTES = [
  [/^\/$/, homePage],
  [/^\/login$/, loginPage],
  [/^\/shops$/, shopsPage],
  [/^\/search$/, searchPage],
  [/^\/shops\/(\d+)$/, shopPage],
  [/^\/vouchers$/, vouchersPage],
  [/^\/orders\/(\d+)$/, orderPage],
  [/^\/checkout$/, checkoutPage],
  [/^\/bills$/, billsPage],
  [/^\/redeem$/, redeemPage],
  [/^\/blogs\/(\d+)$/, blogPage],
  [/^\/write$/, writePage],
  [/^\/users\/(\d+)$/, userPage],
  [/^\/users\/(\d+)\/followers$/, (id, params) => followListPage(id, params, "followers")],
  [/^\/users\/(\d+)\/following$/, (id, params) => followListPage(id, params, "following")],
  [/^\/feed$/, feedPage],
  [/^\/sign$/, signPage],
  [/^\/notifications$/, notificationsPage],
];

function renderAccountLink() {
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

async function route() {
  const [path, query] = (location.hash.slice(1) || "/").split("?");
  const params = new URLSearchParams(query || "");
  routeSeq += 1;
  const show = screen();
  if (path === "/logout") {
    await api("POST", "auth/logout").catch(() => null);
    session.clear();
    renderAccountLink();
    location.hash = "#/";
    return;
  }
  refreshBell(); // not while logging out: the token is on its way out
  for (const [pattern, page] of ROUTES) {
    const match = path.match(pattern);
    if (!match) continue;
    try {
      await (match[1] ? page(match[1], params) : page(params));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) { needLogin(); return; }
      show(h("h1", {}, gettext("Sorry")), h("p", { class: "message" }, explain(error)));
    }
    return;
  }
  show(h("h1", {}, gettext("Not found")), h("p", {}, h("a", { href: "#/" }, gettext("Back home"))));
}

function keepPageOnLanguageSwitch() {
  // The switch posts to Django's set_language, which answers with a redirect to `next`:
  // the page being read, hash included, so the reader stays where they were.
  const form = document.querySelector("form.language");
  form.addEventListener("submit", () => { form.elements.next.value = location.pathname + location.hash; });
}

window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", () => { keepPageOnLanguageSwitch(); renderAccountLink(); route(); });
