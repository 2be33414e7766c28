-- GET every path of PATHS_FILE in turn (one per line), with a rotating anonymous client
-- id, or, when TOKENS_FILE is set, as signed-in users with a rotating bearer token. Each
-- wrk thread starts at its own offset, so threads do not replay each other.
local paths, tokens = {}, {}
for line in io.lines(os.getenv("PATHS_FILE")) do
  paths[#paths + 1] = line
end
local tokens_file = os.getenv("TOKENS_FILE")
if tokens_file then
  for line in io.lines(tokens_file) do
    tokens[#tokens + 1] = line
  end
end
local n = 0
setup = function(thread)
  thread:set("offset", math.random(0, 100000))
end

request = function()
  n = n + 1
  local i = (offset or 0) + n
  local headers = { ["X-Client-Id"] = string.format("bench-client-%06d", i % 5000) }
  if #tokens > 0 then
    headers["Authorization"] = "Bearer " .. tokens[(i % #tokens) + 1]
  end
  return wrk.format("GET", paths[(i % #paths) + 1], headers)
end

-- Pacing (DELAY_MS) and the p99.9 line, shared with the other scripts.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "pacing.lua")
