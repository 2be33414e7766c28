// Reporting a note or a comment to the moderators.

import { act } from "../lib/act.js";
import { api } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { needLogin } from "../lib/session.js";

const REPORT_REASONS = [
  ["spam", gettext("Spam or advertising")], ["abuse", gettext("Abuse or harassment")],
  ["illegal", gettext("Illegal content")], ["sexual", gettext("Sexual content")],
  ["fake", gettext("Fake review")], ["other", gettext("Something else")],
];

export function reportControl(kind, targetId) {
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
