-- get: GET /plants?limit=10 for a user with 1,000 plants. No request() function, so wrk
-- builds the request once and spends its core on sending, not on Lua.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
wrk.method = "GET"
wrk.path = "/plants?limit=10"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
