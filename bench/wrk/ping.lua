-- The baseline's requests, built like shop_detail.lua's (same per-request Lua work in wrk,
-- same header), so the two runs differ only in what the server does.
local n = 0

request = function()
  n = n + 1
  local headers = { ["X-Client-Id"] = string.format("bench-client-%06d", n % 5000) }
  return wrk.format("GET", "/api/ping", headers)
end
