// Text for people: translated sentences with named placeholders, money, times, codes.
//
// Every text goes through Django's JavaScript catalog (/jsi18n/, a classic script that
// runs before the modules), which gives the globals gettext, ngettext, pgettext and
// interpolate in the page's language. Placeholders are named, so a translation may put
// them in another order: fmt(gettext("%(n)s left"), { n }).

export const fmt = (text, values) => interpolate(text, values, true);

export const money = (fen) => `¥${(fen / 100).toFixed(fen % 100 ? 2 : 0)}`;

// Times as the server counts them (its TIME_ZONE, on <body>), 24-hour, the same in every
// browser: "2026-11-24 16:31", whatever zone or locale the browser is in.
const SERVER_TIME = new Intl.DateTimeFormat("en-GB", {
  timeZone: document.body.dataset.timeZone || undefined, hourCycle: "h23",
  year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
});

export function when(iso) {
  const part = Object.fromEntries(SERVER_TIME.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}`;
}

export function fen(yuanText) {
  // A bill typed in yuan ("128.5") as fen, or NaN when it is not a positive amount.
  if (!/^\d+(\.\d{1,2})?$/.test(yuanText.trim())) return NaN;
  const value = Math.round(Number(yuanText) * 100);
  return value > 0 ? value : NaN;
}

// The API's states and kinds are codes; each area keeps their names for people, and a
// code the client has no name for is shown as is.
export const named = (names, code) => names[code] || code;

// A `datetime-local` input's value ("2026-11-24T16:31") for a time, in the server's zone.
export function serverInput(iso) {
  if (!iso) return "";
  const part = Object.fromEntries(SERVER_TIME.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}`;
}

// How far the server's zone is ahead of UTC at an instant (ms since the epoch), in minutes.
function zoneOffset(instant) {
  const part = Object.fromEntries(SERVER_TIME.formatToParts(new Date(instant)).map((p) => [p.type, Number(p.value)]));
  return Math.round((Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute) - instant) / 60000);
}

// A `datetime-local` value read as the server's wall clock, as RFC 3339 with that zone's
// offset ("2026-11-24T16:31:00+08:00"), as the API takes times; "" stays "".
export function serverIso(value) {
  if (!value) return "";
  const [day, time] = value.split("T");
  const [year, month, date] = day.split("-").map(Number);
  const [hour, minute] = time.split(":").map(Number);
  const wall = Date.UTC(year, month - 1, date, hour, minute);
  let offset = zoneOffset(wall);
  offset = zoneOffset(wall - offset * 60000); // the offset at the instant meant (DST edges)
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const pad = (n) => String(n).padStart(2, "0");
  return `${day}T${time.slice(0, 5)}:00${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

// Yuan for an input ("59.5" of 5950 fen), and back: fen of a typed amount (0 allowed), or
// NaN when it is not an amount with at most two decimals.
export const yuan = (fen) => (fen === null || fen === undefined ? "" : String(fen / 100));

export function fenOf(text) {
  if (!/^\d+(\.\d{1,2})?$/.test(text.trim())) return NaN;
  return Math.round(Number(text) * 100);
}
