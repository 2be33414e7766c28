// Forms that send to the API: a field with its label, hint and the place for its errors,
// and the API's 400 `errors` shown next to the fields they name (decision 349).

import { ApiError } from "./api.js";
import { h, message } from "./dom.js";

let serial = 0;

// The slot where the errors of the API's field `names` (one, or several sharing a slot,
// as x and y) appear.
export function errorSlot(names, id) {
  return h("p", { class: "field-error", id: id || `error-${++serial}`, "data-error-for": [].concat(names).join(" ") });
}

// A labelled input, its hint and its errors' slot, tied by aria-describedby.
export function field(names, label, input, hint) {
  if (!input.id) input.id = `field-${[].concat(names)[0]}-${++serial}`;
  const slot = errorSlot(names, `${input.id}-error`);
  const note = hint ? h("p", { class: "muted hint", id: `${input.id}-hint` }, hint) : null;
  input.setAttribute("aria-describedby", [note && note.id, slot.id].filter(Boolean).join(" "));
  return h("div", { class: "field" }, h("label", { for: input.id }, label), input, note, slot);
}

// A mistake found before sending, shown as the API would show it.
export const fieldError = (name, text) => new ApiError(400, { errors: { [name]: [text] } });

const problemsText = (problems) => (Array.isArray(problems) ? problems : [problems])
  .map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ");

function clear(form) {
  for (const slot of form.querySelectorAll(".field-error")) slot.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
}

// `work` with field errors put in place: each under its field (the field marked invalid),
// the ones no field shows in `status` after a summary. Other errors go on to act().
export function withFieldErrors(form, status, work) {
  return async () => {
    clear(form);
    message(status, "");
    try {
      return await work();
    } catch (error) {
      const errors = error instanceof ApiError && error.body && error.body.errors;
      if (!errors || Array.isArray(errors)) throw error;
      const rest = [];
      for (const [name, problems] of Object.entries(errors)) {
        const slot = form.querySelector(`[data-error-for~="${name}"]`);
        if (!slot) { rest.push(`${name}: ${problemsText(problems)}`); continue; }
        slot.textContent = [slot.textContent, problemsText(problems)].filter(Boolean).join(" ");
        const input = form.querySelector(`[aria-describedby~="${slot.id}"]`);
        if (input) input.setAttribute("aria-invalid", "true");
      }
      message(status, [gettext("Please correct the marked fields."), ...rest].join(" "));
      return false;
    }
  };
}
