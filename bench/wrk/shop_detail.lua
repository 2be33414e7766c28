-- GET /api/shops/{id} over every demo shop id, with a rotating anonymous client id,
-- or, when TOKENS_FILE is set, as logged-in users with a rotating bearer token.
-- wrk runs one copy of this script per thread.
local first_id = tonumber(os.getenv("SHOP_FIRST_ID") or "1")
local count = tonumber(os.getenv("SHOP_COUNT") or "500")
local tokens = {}
local tokens_file = os.getenv("TOKENS_FILE")
if tokens_file then
  for line in io.lines(tokens_file) do
    tokens[#tokens + 1] = line
  end
end
local n = 0

request = function()
  n = n + 1
  local id = first_id + (n % count)
  local headers = { ["X-Client-Id"] = string.format("bench-client-%06d", n % 5000) }
  if #tokens > 0 then
    headers["Authorization"] = "Bearer " .. tokens[(n % #tokens) + 1]
  end
  return wrk.format("GET", "/api/shops/" .. id, headers)
end

-- Pacing (DELAY_MS) and the p99.9 line, shared with the other scripts.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "pacing.lua")
