-- POST /api/vouchers/{VOUCHER_ID}/{ACTION} (ACTION: seckill, the default, or claim) as
-- many users, rotating bearer tokens from TOKENS_FILE (one per line), so most early
-- requests are first attempts. With CHALLENGES_FILE (lines `<token> <id> <answer>`,
-- from `manage.py issue_challenges`) its tokens are used instead, each grab sending its
-- token's challenge answer as the JSON body (a sale with a challenge).
local voucher = os.getenv("VOUCHER_ID")
local action = os.getenv("ACTION") or "seckill"
local tokens, bodies = {}, {}
local challenges = os.getenv("CHALLENGES_FILE")
if challenges then
  for line in io.lines(challenges) do
    local token, id, answer = line:match("^(%S+) (%S+) (%S+)$")
    tokens[#tokens + 1] = token
    bodies[#bodies + 1] = '{"challenge": {"id": "' .. id .. '", "answer": "' .. answer .. '"}}'
  end
else
  for line in io.lines(os.getenv("TOKENS_FILE")) do
    tokens[#tokens + 1] = line
  end
end
local n = 0
-- Each wrk thread starts at a different offset, so threads do not replay each other.
setup = function(thread)
  thread:set("offset", math.random(0, #tokens - 1))
end

request = function()
  n = n + 1
  local i = ((offset or 0) + n) % #tokens + 1
  local body = bodies[i]
  if body then
    return wrk.format("POST", "/api/vouchers/" .. voucher .. "/" .. action,
      { ["Authorization"] = "Bearer " .. tokens[i], ["Content-Type"] = "application/json" }, body)
  end
  return wrk.format("POST", "/api/vouchers/" .. voucher .. "/" .. action,
    { ["Authorization"] = "Bearer " .. tokens[i], ["Content-Length"] = "0" })
end

-- Pacing (DELAY_MS) and the p99.9 line, shared with the other scripts.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "pacing.lua")
