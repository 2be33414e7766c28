-- The baseline's requests, built like shop_detail.lua's (same per-request Lua work in wrk,
-- same header), so the two runs differ only in what the server does. PING_PATH picks
-- /api/ping/redis for the Redis floor (the bare view plus one round trip).
local path = os.getenv("PING_PATH") or "/api/ping"
local n = 0

request = function()
  n = n + 1
  local headers = { ["X-Client-Id"] = string.format("bench-client-%06d", n % 5000) }
  return wrk.format("GET", path, headers)
end

-- DELAY_MS paces each connection (the latency runs: a rate below the peak); p99.9 is
-- printed for the harness, which wrk's own --latency table lacks.
local delay_ms = tonumber(os.getenv("DELAY_MS") or "")
if delay_ms then
  delay = function() return delay_ms end
end
done = function(summary, latency, requests)
  io.write(string.format("p99.9: %dus\n", latency:percentile(99.9)))
end
