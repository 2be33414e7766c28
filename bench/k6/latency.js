// The open-model ladder of bench/latency.py: one constant-arrival-rate scenario per step,
// run one after the other. k6 starts each iteration at its scheduled instant on a free VU
// (it never waits for an answer before sending the next), so a slow server shows as
// latency, and an iteration that finds no free VU is counted in dropped_iterations
// instead of being sent late.
//
// Environment: BASE (http://127.0.0.1:PORT), PATHS_FILE (one path a line), TOKENS_FILE
// (bearer tokens, one a line; empty for anonymous), METHOD (GET or POST), RATES (requests
// a second per step, "700,1200"), VUS (VUs per step, same length), STEP and GAP (seconds),
// EXPECTED ("200" or "200,409": other statuses count as failed), SUMMARY (the JSON file
// bench/latency.py reads).
import http from 'k6/http';
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';

const lines = (path) => (path ? open(path).split('\n').filter((line) => line.length > 0) : []);
const paths = new SharedArray('paths', () => lines(__ENV.PATHS_FILE));
const tokens = new SharedArray('tokens', () => lines(__ENV.TOKENS_FILE));
const rates = __ENV.RATES.split(',').map(Number);
const vus = __ENV.VUS.split(',').map(Number);
const step = Number(__ENV.STEP || 3);
const gap = Number(__ENV.GAP || 0.5);
const warmup = Number(__ENV.WARMUP || 1);
const method = __ENV.METHOD || 'GET';
http.setResponseCallback(http.expectedStatuses(...(__ENV.EXPECTED || '200').split(',').map(Number)));

// A warm-up at the first step's rate opens the VUs' connections, so the first measured
// step does not pay for hundreds of connects at once (it has no threshold: not reported).
const scenarios = warmup > 0 ? {
  w: { executor: 'constant-arrival-rate', rate: rates[0], timeUnit: '1s', duration: `${warmup}s`,
       preAllocatedVUs: vus[0], maxVUs: vus[0], gracefulStop: '1s' },
} : {};
const thresholds = {};
rates.forEach((rate, i) => {
  const name = `s${i}`;
  scenarios[name] = {
    executor: 'constant-arrival-rate',
    rate,
    timeUnit: '1s',
    duration: `${step}s`,
    startTime: `${(warmup + gap + i * (step + gap)).toFixed(3)}s`,
    preAllocatedVUs: vus[i],
    maxVUs: vus[i],
    gracefulStop: '2s',
  };
  // A threshold per scenario makes k6 keep that scenario's own figures (sub-metrics).
  thresholds[`http_req_duration{scenario:${name}}`] = ['max>=0'];
  thresholds[`http_req_failed{scenario:${name}}`] = ['rate>=0'];
  thresholds[`http_reqs{scenario:${name}}`] = ['count>=0'];
  thresholds[`dropped_iterations{scenario:${name}}`] = ['count>=0'];
});

export const options = {
  scenarios,
  thresholds,
  discardResponseBodies: true,
  summaryTrendStats: ['p(50)', 'p(99)', 'p(99.9)', 'max', 'count'],
};

export default function () {
  // Each step starts far into the token list, so a step's buyers are not the last one's.
  const i = exec.scenario.iterationInTest + 100003 * (Number(exec.scenario.name.slice(1)) || 9);
  const params = { headers: { 'X-Client-Id': `bench-client-${i % 5000}` } };
  if (tokens.length > 0) {
    params.headers.Authorization = `Bearer ${tokens[i % tokens.length]}`;
  }
  const path = paths[i % paths.length];
  if (method === 'POST') {
    http.post(__ENV.BASE + path, null, params);
  } else {
    http.get(__ENV.BASE + path, params);
  }
}

export function handleSummary(data) {
  const value = (metric, name, field) => {
    const m = data.metrics[`${metric}{scenario:${name}}`];
    return m && m.values[field] !== undefined ? m.values[field] : null;
  };
  const steps = rates.map((rate, i) => {
    const name = `s${i}`;
    return {
      rate,
      vus: vus[i],
      p50_ms: value('http_req_duration', name, 'p(50)'),
      p99_ms: value('http_req_duration', name, 'p(99)'),
      p999_ms: value('http_req_duration', name, 'p(99.9)'),
      max_ms: value('http_req_duration', name, 'max'),
      requests: value('http_reqs', name, 'count') || 0,
      failed_rate: value('http_req_failed', name, 'rate') || 0,
      dropped: value('dropped_iterations', name, 'count') || 0,
    };
  });
  return { [__ENV.SUMMARY]: JSON.stringify({ steps }, null, 1) };
}
