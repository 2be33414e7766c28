-- GET /api/shops/{id} over every demo shop id, with a rotating anonymous client id,
-- or, when TOKENS_FILE is set, as logged-in users with a rotating bearer token.
-- wrk runs one copy of this script per thread.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or ""
dofile(here .. "clients.lua")
local first_id = tonumber(os.getenv("SHOP_FIRST_ID") or "1")
local count = tonumber(os.getenv("SHOP_COUNT") or "500")
local tokens = lines_of(os.getenv("TOKENS_FILE"))
local n = 0

request = function()
  n = n + 1
  return wrk.format("GET", "/api/shops/" .. (first_id + (n % count)), client_headers(n, tokens))
end

-- Pacing (DELAY_MS) and the p99.9 line, shared with the other scripts.
dofile(here .. "pacing.lua")
