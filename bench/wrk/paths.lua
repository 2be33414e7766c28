-- GET every path of PATHS_FILE in turn (one per line), with a rotating anonymous client
-- id, or, when TOKENS_FILE is set, as signed-in users with a rotating bearer token. Each
-- wrk thread starts at its own offset, so threads do not replay each other.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or ""
dofile(here .. "clients.lua")
local paths = lines_of(os.getenv("PATHS_FILE"))
local tokens = lines_of(os.getenv("TOKENS_FILE"))
local n = 0
setup = function(thread)
  thread:set("offset", math.random(0, 100000))
end

request = function()
  n = n + 1
  local i = (offset or 0) + n
  return wrk.format("GET", paths[(i % #paths) + 1], client_headers(i, tokens))
end

-- Pacing (DELAY_MS) and the p99.9 line, shared with the other scripts.
dofile(here .. "pacing.lua")
