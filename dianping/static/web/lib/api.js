// The project's JSON API: one fetch wrapper that sends the token and the client id, the
// error it throws, and the words shown for an error.

import { renderAccountLink, session } from "./session.js";

const randomHex = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

export function clientId() {
  // A stable anonymous id, so the shops' unique-visitor counts know a returning browser.
  let id = localStorage.getItem("client-id");
  if (!id) {
    id = randomHex();
    localStorage.setItem("client-id", id);
  }
  return id;
}

// A fresh Idempotency-Key: one per thing being sent, so a retry is done once.
export const idempotencyKey = randomHex;

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.detail) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.body = body;
  }
}

export async function api(method, path, body, extraHeaders = {}) {
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

export const get = (path) => api("GET", path);

// Answers worth saying differently from the server's own `detail`.
const CODE_MESSAGES = {
  sold_out: gettext("Sold out. Better luck next time!"),
  duplicate_order: gettext("You already bought this voucher: see My vouchers."),
  limit_reached: gettext("You already hold as many of these as allowed: see My vouchers."),
  coupon_used: gettext("That coupon has been used already."),
  coupon_expired: gettext("That coupon has expired."),
  code_not_found: gettext("No coupon of this shop has that code."),
};

export function explain(error) {
  if (error instanceof ApiError) {
    if (error.status === 401) return gettext("Please log in first.");
    if (error.body && error.body.errors) {
      return Object.entries(error.body.errors).map(([field, problems]) => `${field}: ${problems.join(" ")}`).join(" ");
    }
    return CODE_MESSAGES[error.code] || error.message;
  }
  return gettext("Something went wrong; please try again.");
}
