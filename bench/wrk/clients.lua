-- Loaded by the request scripts (dofile): the lines of a file (paths, tokens), and the
-- headers of a script's i-th request: a rotating anonymous client id and, when there are
-- tokens, a rotating bearer token.
function lines_of(path)
  local lines = {}
  if path then
    for line in io.lines(path) do
      lines[#lines + 1] = line
    end
  end
  return lines
end

function client_headers(i, tokens)
  local headers = { ["X-Client-Id"] = string.format("bench-client-%06d", i % 5000) }
  if #tokens > 0 then
    headers["Authorization"] = "Bearer " .. tokens[(i % #tokens) + 1]
  end
  return headers
end
