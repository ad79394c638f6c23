-- wrk script for bench/run.sh: counts responses by status class in every wrk thread and, at the
-- end, prints one machine-readable line:
--   BENCH requests=N duration_us=N rps=X bytes=N ok=N non2xx=N last_non2xx=S errors_connect=N
--         errors_read=N errors_write=N errors_status=N errors_timeout=N p50_us=N p99_us=N
-- (wrk's own "Non-2xx or 3xx responses" only counts statuses >= 400; this counts anything
-- outside 200-299, so redirects or 1xx would be caught too.)

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_no", #threads)
end

function init(args)
  ok = 0
  non2xx = 0
  last_non2xx = "-"
end

-- With WRK_CREATE=1 every request creates a new 1 KB item (POST to the URL's path, the headers given
-- with -H, which sign a create in the container): {"id":"w<run>-<thread>-<n>","pk":"p1",...}.
if os.getenv("WRK_CREATE") == "1" then
  local run = os.getenv("WRK_RUN") or tostring(os.time())
  local counter = 0
  local padding = string.rep("x", 980)
  function request()
    counter = counter + 1
    local id = "w" .. run .. "-" .. tostring(thread_no) .. "-" .. counter
    local body = '{"id":"' .. id .. '","pk":"p1","payload":"' .. string.sub(padding, 1, 980 - #id) .. '"}'
    wrk.headers["content-type"] = "application/json"  -- (given headers would replace the -H ones)
    return wrk.format("POST", nil, nil, body)
  end
end

function response(status, headers, body)
  if status >= 200 and status < 300 then
    ok = ok + 1
  else
    non2xx = non2xx + 1
    last_non2xx = tostring(status)
  end
end

function done(summary, latency, requests)
  local total_ok, total_non2xx, last = 0, 0, "-"
  for _, t in ipairs(threads) do
    total_ok = total_ok + (t:get("ok") or 0)
    total_non2xx = total_non2xx + (t:get("non2xx") or 0)
    local l = t:get("last_non2xx")
    if l and l ~= "-" then last = l end
  end
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format(
    "BENCH requests=%d duration_us=%d rps=%.1f bytes=%d ok=%d non2xx=%d last_non2xx=%s " ..
    "errors_connect=%d errors_read=%d errors_write=%d errors_status=%d errors_timeout=%d " ..
    "p50_us=%d p99_us=%d\n",
    summary.requests, summary.duration, summary.requests / secs, summary.bytes,
    total_ok, total_non2xx, last,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
