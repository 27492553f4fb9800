-- post: POST /plants with a new id per request. BENCH_ID_BASE differs per run, so ids never
-- collide across repetitions; one wrk thread, so one counter covers every connection.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local base = tonumber(os.getenv("BENCH_ID_BASE"))
local headers = { ["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN"), ["Content-Type"] = "application/json" }
local n = 0

function request()
  n = n + 1
  local body = string.format('{"id":%d,"name":"bench plant %d","tag":"bench"}', base + n, n)
  return wrk.format("POST", "/plants", headers, body)
end
