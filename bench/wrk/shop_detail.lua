-- GET /api/shops/{id} over every demo shop id, with a rotating anonymous client id.
-- wrk runs one copy of this script per thread.
local first_id = tonumber(os.getenv("SHOP_FIRST_ID") or "1")
local count = tonumber(os.getenv("SHOP_COUNT") or "500")
local n = 0

request = function()
  n = n + 1
  local id = first_id + (n % count)
  local headers = { ["X-Client-Id"] = string.format("bench-client-%06d", n % 5000) }
  return wrk.format("GET", "/api/shops/" .. id, headers)
end
