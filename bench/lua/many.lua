-- many: many owners, each with its own token and seeded plants (BENCH_MANY_FILE: one line per
-- owner, its token then its seeded ids). Every request picks a random owner; of every 20
-- requests 16 GET /plants?limit=10&after=<one of its seeded ids>, 3 POST a new plant, 1 DELETE
-- a plant this run created. As in mixed.lua a delete targets a plant created at least LAG
-- posts earlier, so its create has been answered; until then it is a GET. wrk calls
-- request() once before the run and discards it, so the first slot is a GET.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local base = tonumber(os.getenv("BENCH_ID_BASE"))
math.randomseed(tonumber(os.getenv("BENCH_SEED") or "1"))
local LAG = 200

local auths, ids = {}, {}
for line in io.lines(os.getenv("BENCH_MANY_FILE")) do
  local owner = {}
  for word in line:gmatch("%S+") do owner[#owner + 1] = word end
  auths[#auths + 1] = "Bearer " .. table.remove(owner, 1)
  ids[#ids + 1] = owner
end
local owners = #auths

local n, posted, deleted = 0, 0, 0
local postedOwner = {}
local gets = {}

function request()
  n = n + 1
  local slot = n % 20
  if slot >= 2 and slot <= 4 then
    local o = math.random(owners)
    posted = posted + 1
    postedOwner[posted] = o
    local body = string.format('{"id":%d,"name":"bench plant %d","tag":"bench"}', base + posted, posted)
    return wrk.format("POST", "/plants", { ["Authorization"] = auths[o], ["Content-Type"] = "application/json" }, body)
  elseif slot == 5 and deleted + LAG < posted then
    deleted = deleted + 1
    local o = postedOwner[deleted]
    postedOwner[deleted] = nil
    return wrk.format("DELETE", string.format("/plants/%d", base + deleted), { ["Authorization"] = auths[o] })
  end
  local o = math.random(owners)
  local mine = ids[o]
  local i = math.random(#mine)
  local key = o * 100000 + i
  -- Built on first use and kept: wrk sets the Host header only after the script has loaded.
  local req = gets[key]
  if req == nil then
    req = wrk.format("GET", "/plants?limit=10&after=" .. mine[i], { ["Authorization"] = auths[o] })
    gets[key] = req
  end
  return req
end
