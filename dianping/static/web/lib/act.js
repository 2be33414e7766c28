// How every button that sends a request behaves (docs/decisions/web-client.md).

import { ApiError, explain } from "./api.js";
import { message } from "./dom.js";
import { needLogin } from "./session.js";

export function act(button, status, work) {
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
