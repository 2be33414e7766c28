-- Funnel rate limit (the function comes from funnel_lib.lua, prepended on load).
-- KEYS[1] hash {level, ts}
-- ARGV[1] capacity; ARGV[2] leak per ms; ARGV[3] quota; ARGV[4] now in ms
-- Returns {1, 0} allowed, or {0, ms until `quota` fits}.
local allowed, wait = funnel(
  KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
return {allowed, wait}
