-- mixed: of every 20 requests 16 GET /plants?limit=10, 3 POST a new plant, 1 DELETE a plant
-- this run created. A delete targets a plant created at least LAG posts earlier, so its
-- create has been answered (at most 50 requests are in flight); until then it is a GET.
-- wrk calls request() once before the run to check it and discards the result, so the
-- first slot is a GET: losing it must not lose a create that a delete counts on.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local base = tonumber(os.getenv("BENCH_ID_BASE"))
local auth = "Bearer " .. os.getenv("BENCH_TOKEN")
local LAG = 200
local n, posted, deleted = 0, 0, 0
local get

function request()
  -- Built on first use: wrk sets the Host header only after the script has loaded.
  get = get or wrk.format("GET", "/plants?limit=10", { ["Authorization"] = auth })
  n = n + 1
  local slot = n % 20
  if slot >= 2 and slot <= 4 then
    posted = posted + 1
    local body = string.format('{"id":%d,"name":"bench plant %d","tag":"bench"}', base + posted, posted)
    return wrk.format("POST", "/plants", { ["Authorization"] = auth, ["Content-Type"] = "application/json" }, body)
  elseif slot == 5 and deleted + LAG < posted then
    deleted = deleted + 1
    return wrk.format("DELETE", string.format("/plants/%d", base + deleted), { ["Authorization"] = auth })
  end
  return get
end
