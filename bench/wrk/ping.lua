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

-- Pacing (DELAY_MS) and the p99.9 line, shared with the other scripts.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "pacing.lua")
