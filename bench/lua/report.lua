-- Shared by every scenario: wrk calls done() once at the end; it prints one line the
-- runner parses. wrk counts a status above 399 as errors.status; the servers under test
-- never send 1xx or 3xx, so that count is the non-2xx count.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"seconds":%.3f,"p50_us":%d,"p99_us":%d,"max_us":%d,"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
