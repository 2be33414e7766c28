// The admin's live sale page: reads the sale's numbers every few seconds and draws the
// last five minutes as SVG lines (no chart library; the page's markup holds the words).
const root = document.getElementById("live-sale");
const numbersUrl = root.dataset.numbersUrl;
const intervalMs = Number(root.dataset.intervalMs) || 2000;
const WINDOW_MS = 5 * 60 * 1000; // kept and drawn at most
const MIN_SPAN_MS = 60 * 1000; // drawn at least, so a fresh page's lines are not a sliver
const WIDTH = 600;
const HEIGHT = 160;
const series = {}; // name -> [[time ms, value], ...]
let previous = null;

function setNumber(name, value) {
  root.querySelector(`[data-number="${name}"]`).textContent = value;
}

function record(name, at, value) {
  const points = (series[name] ||= []);
  points.push([at, value]);
  while (points.length && points[0][0] < at - WINDOW_MS) points.shift();
}

// A per-second rate between two reads (0 after a counter reset: a restarted host).
function rate(current, before, seconds) {
  return current < before ? 0 : (current - before) / seconds;
}

// A round ceiling for the y axis: 1, 2 or 5 times a power of ten.
function niceMax(value) {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value);
}

function draw(now) {
  const oldest = Math.min(now, ...Object.values(series).map((points) => points[0]?.[0] ?? now));
  const span = Math.min(WINDOW_MS, Math.max(MIN_SPAN_MS, now - oldest));
  for (const chart of root.querySelectorAll("[data-chart]")) {
    const lines = [...chart.querySelectorAll("[data-series]")];
    const values = lines.flatMap((line) => (series[line.dataset.series] || []).map((p) => p[1]));
    const top = niceMax(Math.max(0, ...values));
    chart.querySelector("[data-axis-max]").textContent = top;
    chart.querySelector("[data-axis-span]").textContent = `−${Math.round(span / 1000)} s`;
    for (const line of lines) {
      const points = (series[line.dataset.series] || []).map(([at, value]) => {
        const x = WIDTH - ((now - at) / span) * WIDTH;
        const y = HEIGHT - (value / top) * (HEIGHT - 16);
        return `${x.toFixed(1)},${y.toFixed(1)}`;
      });
      line.setAttribute("points", points.join(" "));
    }
  }
}

function showRefusals(refused) {
  const rows = Object.entries(refused)
    .sort((a, b) => b[1] - a[1])
    .map(([verdict, count]) => {
      const row = document.createElement("tr");
      for (const text of [verdict, String(count)]) {
        row.append(Object.assign(document.createElement("td"), { textContent: text }));
      }
      return row;
    });
  root.querySelector("[data-refusals]").replaceChildren(...rows);
}

function show(numbers) {
  const at = numbers.at_ms;
  const refused = Object.values(numbers.refused).reduce((sum, count) => sum + count, 0);
  const seconds = previous ? Math.max((at - previous.at) / 1000, 0.001) : 0;
  const acceptedRate = previous ? rate(numbers.accepted, previous.accepted, seconds) : 0;
  const refusedRate = previous ? rate(refused, previous.refused, seconds) : 0;
  setNumber("stock_left", numbers.stock_left ?? "–");
  setNumber("accepted", numbers.accepted);
  setNumber("refused", refused);
  setNumber("accepted_rate", acceptedRate.toFixed(1));
  setNumber("refused_rate", refusedRate.toFixed(1));
  setNumber("persisted", numbers.persisted);
  setNumber("pending", numbers.drain.pending);
  setNumber("lag_seconds", numbers.drain.lag_seconds.toFixed(1));
  setNumber("dead_letters", numbers.drain.dead_letters);
  showRefusals(numbers.refused);
  if (numbers.stock_left !== null) record("stock_left", at, numbers.stock_left);
  if (previous) {
    record("accepted_rate", at, acceptedRate);
    record("refused_rate", at, refusedRate);
  }
  record("lag_seconds", at, numbers.drain.lag_seconds);
  record("dead_letters", at, numbers.drain.dead_letters);
  draw(at);
  previous = { at, accepted: numbers.accepted, refused };
}

async function poll() {
  const status = root.querySelector("[data-status]");
  try {
    const response = await fetch(numbersUrl, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    show(await response.json());
    status.textContent = "";
  } catch {
    status.textContent = root.dataset.lostText;
  }
  setTimeout(poll, intervalMs);
}

poll();
