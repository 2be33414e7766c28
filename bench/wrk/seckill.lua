-- POST /api/vouchers/{VOUCHER_ID}/{ACTION} (ACTION: seckill, the default, or claim) as
-- many users, rotating bearer tokens from TOKENS_FILE (one per line), so most early
-- requests are first attempts.
local voucher = os.getenv("VOUCHER_ID")
local action = os.getenv("ACTION") or "seckill"
local tokens = {}
for line in io.lines(os.getenv("TOKENS_FILE")) do
  tokens[#tokens + 1] = line
end
local n = 0
-- Each wrk thread starts at a different offset, so threads do not replay each other.
setup = function(thread)
  thread:set("offset", math.random(0, #tokens - 1))
end

request = function()
  n = n + 1
  local token = tokens[((offset or 0) + n) % #tokens + 1]
  return wrk.format("POST", "/api/vouchers/" .. voucher .. "/" .. action,
    { ["Authorization"] = "Bearer " .. token, ["Content-Length"] = "0" })
end

-- Pacing (DELAY_MS) and the p99.9 line, shared with the other scripts.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "pacing.lua")
