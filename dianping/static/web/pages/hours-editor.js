// The opening hours editor of a shop's owner, in the API's format (shops/hours.py): per
// weekday up to 4 ranges, a range ending at or before its start running overnight into
// the next day, and dates closed all day (holidays). The server checks the whole (ranges
// that overlap, an overnight range running into the next day's first); this only edits.

import { h } from "../lib/dom.js";
import { fmt } from "../lib/format.js";
import { errorSlot } from "../lib/forms.js";

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const DAY_NAMES = {
  mon: gettext("Monday"), tue: gettext("Tuesday"), wed: gettext("Wednesday"), thu: gettext("Thursday"),
  fri: gettext("Friday"), sat: gettext("Saturday"), sun: gettext("Sunday"),
};
const MAX_RANGES = 4;
const NEW_RANGE = ["10:00", "22:00"];

// A time input cannot say 24:00: midnight as an end is shown as 00:00 (the next day's
// start, the same instant) and sent as 24:00, so 00:00–00:00 is the whole day.
const shownEnd = (end) => (end === "24:00" ? "00:00" : end);
const sentEnd = (end) => (end === "00:00" ? "24:00" : end);
const overnight = ([start, end]) => Boolean(start && end) && end !== "00:00" && end <= start;

export function hoursEditor(hours) {
  const weekly = Object.fromEntries(DAYS.map((day) => [day,
    ((hours && hours.weekly && hours.weekly[day]) || []).map(([start, end]) => [start, shownEnd(end)])]));
  const closed = [...((hours && hours.closed_dates) || [])];
  const week = h("div", { class: "week" });
  const dates = h("ul", { class: "closed-dates", "aria-label": gettext("Closed dates") });

  function rangeRow(day, ranges, index) {
    const range = ranges[index];
    const name = DAY_NAMES[day];
    const n = index + 1;
    const next = h("span", { class: "muted overnight", hidden: !overnight(range) }, gettext("next day"));
    const time = (which, label) => {
      const input = h("input", { type: "time", value: range[which], required: true, "aria-label": label });
      input.addEventListener("input", () => { range[which] = input.value; next.hidden = !overnight(range); });
      return input;
    };
    const remove = h("button", { type: "button", class: "link",
      "aria-label": fmt(gettext("Remove range %(n)s of %(day)s"), { day: name, n }),
      onclick: () => { ranges.splice(index, 1); render(); } }, gettext("Remove"));
    return h("li", { class: "range" },
      time(0, fmt(gettext("%(day)s, range %(n)s: opens"), { day: name, n })), "–",
      time(1, fmt(gettext("%(day)s, range %(n)s: closes"), { day: name, n })), next, remove);
  }

  function dayRow(day) {
    const ranges = weekly[day];
    const add = h("button", { type: "button", class: "secondary", disabled: ranges.length >= MAX_RANGES,
      "aria-label": fmt(gettext("Add a range on %(day)s"), { day: DAY_NAMES[day] }),
      onclick: () => { ranges.push(ranges.length ? ["", ""] : [...NEW_RANGE]); render(); } }, gettext("Add a range"));
    return h("div", { class: "day", "data-day": day },
      h("span", { class: "day-name" }, DAY_NAMES[day]),
      h("div", {},
        ranges.length ? h("ul", { class: "ranges" }, ranges.map((_, i) => rangeRow(day, ranges, i)))
          : h("p", { class: "muted" }, gettext("Closed all day")),
        add));
  }

  function dateItem(date, index) {
    return h("li", {}, date, " ", h("button", { type: "button", class: "link",
      "aria-label": fmt(gettext("Remove the closed date %(date)s"), { date }),
      onclick: () => { closed.splice(index, 1); render(); } }, gettext("Remove")));
  }

  function render() {
    week.replaceChildren(...DAYS.map(dayRow));
    dates.replaceChildren(...closed.map(dateItem));
  }

  const copy = h("button", { type: "button", class: "secondary", onclick: () => {
    for (const day of DAYS.slice(1)) weekly[day] = weekly.mon.map((range) => [...range]);
    render();
  } }, gettext("Copy Monday to every day"));
  const newDate = h("input", { type: "date", id: "closed-date-new", min: "2000-01-01", max: "2099-12-31" });
  const addDate = h("button", { type: "button", class: "secondary", onclick: () => {
    if (newDate.value && !closed.includes(newDate.value)) closed.push(newDate.value);
    closed.sort();
    newDate.value = "";
    render();
  } }, gettext("Add the date"));
  render();

  const none = h("p", { class: "muted", hidden: Boolean(hours) },
    gettext("No opening hours yet: the shop's page shows none, and no “Open now”."));
  const node = h("fieldset", { class: "hours" }, h("legend", {}, gettext("Opening hours")), none,
    h("p", { class: "muted" }, gettext("Local time. A range that closes at or before it opens runs past midnight into the next day (18:00–02:00); 00:00–00:00 is the whole day.")),
    week, h("p", {}, copy),
    h("label", { for: "closed-date-new" }, gettext("Closed all day on (holidays)")),
    h("div", { class: "row" }, newDate, addDate), dates,
    errorSlot("hours"));
  const value = () => ({
    weekly: Object.fromEntries(DAYS.map((day) => [day, weekly[day].map(([start, end]) => [start, sentEnd(end)])])),
    closed_dates: [...closed],
  });
  let saved = JSON.stringify(value());
  return {
    node,
    value,
    // Whether there is something to send: a shop without hours keeps none until some are
    // entered (all days closed would be hours too, and say "Closed" for ever).
    changed: () => JSON.stringify(value()) !== saved,
    sent: () => { saved = JSON.stringify(value()); none.hidden = true; },
  };
}
