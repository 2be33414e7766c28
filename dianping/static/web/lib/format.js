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
