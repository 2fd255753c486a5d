-- GET one path on every keep-alive connection; BENCH_PATH, BENCH_INM (If-None-Match),
-- BENCH_AUTH (Authorization) and BENCH_DELEGATION (X-Iceberg-Access-Delegation) come from the
-- environment. done() prints one JSON line that
-- bench/run.py reads.
wrk.method = "GET"
wrk.path = os.getenv("BENCH_PATH") or "/"
local inm = os.getenv("BENCH_INM")
if inm ~= nil and inm ~= "" then
  wrk.headers["If-None-Match"] = inm
end
local auth = os.getenv("BENCH_AUTH")
if auth ~= nil and auth ~= "" then
  wrk.headers["Authorization"] = auth
end
local delegation = os.getenv("BENCH_DELEGATION")
if delegation ~= nil and delegation ~= "" then
  wrk.headers["X-Iceberg-Access-Delegation"] = delegation
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"max_us":%d,"errors_connect":%d,"errors_read":%d,"errors_write":%d,"errors_status":%d,' ..
    '"errors_timeout":%d}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
