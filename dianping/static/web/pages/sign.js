// The daily sign-in: today's button, the streak, the days signed this month and ever, and
// the month's calendar.

import { act } from "../lib/act.js";
import { api, get } from "../lib/api.js";
import { h, message } from "../lib/dom.js";
import { fmt } from "../lib/format.js";
import { screen } from "../lib/screen.js";
import { needLogin } from "../lib/session.js";

export async function signPage() {
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
  // The counts as numbers beside their labels (no number inside a translated sentence).
  const monthEl = h("span", { class: "stat", "data-count": "month" });
  const totalEl = h("span", { class: "stat", "data-count": "total" });
  const showCounts = (month, total) => {
    monthEl.textContent = String(month);
    totalEl.textContent = String(total);
  };
  showCounts(streak.month_count, streak.total);
  const counts = h("p", { class: "sign-counts" },
    gettext("Days signed this month:"), " ", monthEl, " · ", gettext("Days signed in all:"), " ", totalEl);
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
    // The answer's month is the signed day's; it is this page's month unless the day
    // turned while the page was open.
    showCounts(result.date.startsWith(current.month) ? result.month_count : Number(monthEl.textContent), result.total);
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
  show(h("h1", {}, gettext("Daily sign-in")), streakLine, counts, h("div", { class: "row" }, button), status,
    h("h2", {}, title), calendar);
}
