-- The Redis floor: ping.lua's requests against /api/ping/redis (the bare view plus one
-- Redis round trip), so the seckill's ratio can be read against what one round trip costs.
local n = 0

request = function()
  n = n + 1
  local headers = { ["X-Client-Id"] = string.format("bench-client-%06d", n % 5000) }
  return wrk.format("GET", "/api/ping/redis", headers)
end
