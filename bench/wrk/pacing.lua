-- Loaded by the request scripts (dofile): DELAY_MS paces each connection (the latency
-- runs: a rate below the peak), and done() prints p99.9 for the harness, which wrk's
-- own --latency table lacks.
local delay_ms = tonumber(os.getenv("DELAY_MS") or "")
if delay_ms then
  delay = function() return delay_ms end
end
done = function(summary, latency, requests)
  io.write(string.format("p99.9: %dus\n", latency:percentile(99.9)))
end
