-- GET one path on every keep-alive connection as one principal (BENCH_PATH, BENCH_AUTH from the
-- environment), counting answers by class so a flood's 429s and any 5xx are told apart.
-- done() prints one JSON line that bench/run.py reads.
wrk.method = "GET"
wrk.path = os.getenv("BENCH_PATH") or "/"
local auth = os.getenv("BENCH_AUTH")
if auth ~= nil and auth ~= "" then
  wrk.headers["Authorization"] = auth
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  ok, limited, server_errors, other = 0, 0, 0, 0
end

function response(status, headers, body)
  if status == 429 then
    limited = limited + 1
  elseif status >= 500 then
    server_errors = server_errors + 1
  elseif status < 300 then
    ok = ok + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local n_ok, n_429, n_5xx, n_other = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    n_ok = n_ok + t:get("ok")
    n_429 = n_429 + t:get("limited")
    n_5xx = n_5xx + t:get("server_errors")
    n_other = n_other + t:get("other")
  end
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"ok":%d,"status_429":%d,"status_5xx":%d,' ..
    '"status_other":%d,"errors_connect":%d,"errors_read":%d,"errors_timeout":%d}\n',
    summary.requests, summary.duration, n_ok, n_429, n_5xx, n_other, e.connect, e.read, e.timeout))
end
