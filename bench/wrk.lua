-- wrk script for bench/http.py. One thread per connection, so each connection's requests are
-- sequential. BENCH_MODE:
--   get    GET BENCH_PATH (with If-None-Match: BENCH_IF_NONE_MATCH when set: a follower's 304)
--   post   POST BENCH_BODY (JSON) to BENCH_PATH
--   moves  each thread cycles through its own games (BENCH_GAMES: lines "thread id token") and
--          posts to each, in order, the next move of the legal stream in BENCH_MOVES (one JSON
--          move per line): every request is a legal move. A non-201 (counted by wrk as a
--          non-2xx answer) is re-sent, never skipped.
local count = 0

function setup(thread)
  thread:set("tid", count)
  count = count + 1
end

function init(args)
  mode = os.getenv("BENCH_MODE") or "get"
  path = os.getenv("BENCH_PATH") or "/"
  if mode == "moves" then
    games = {}
    for line in io.lines(os.getenv("BENCH_GAMES")) do
      local t, id, token = line:match("(%d+)%s+(%S+)%s+(%S+)")
      if tonumber(t) == tid then
        table.insert(games, {
          path = "/api/v1/games/" .. id .. "/moves",
          headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token},
        })
      end
    end
    moves = {}
    for line in io.lines(os.getenv("BENCH_MOVES")) do table.insert(moves, line) end
    k = 0
  elseif mode == "post" then
    req = wrk.format("POST", path, {["Content-Type"] = "application/json"}, os.getenv("BENCH_BODY"))
  else
    local tag = os.getenv("BENCH_IF_NONE_MATCH") or ""
    req = wrk.format("GET", path, tag ~= "" and {["If-None-Match"] = tag} or nil)
  end
end

function request()
  if mode == "moves" then
    local g = games[(k % #games) + 1]
    g.n = g.n or 1
    return wrk.format("POST", g.path, g.headers, moves[math.min(g.n, #moves)])
  end
  return req
end

if os.getenv("BENCH_MODE") == "moves" then
  -- Advance only on an answer: wrk may build a request it never sends (it did, for the first
  -- one), so the next move of a game is decided by the answer to the previous one, not by the
  -- count of request() calls. A 201 moves this game on and passes to the connection's next game.
  function response(status, headers, body)
    if status == 201 then
      local g = games[(k % #games) + 1]
      g.n = g.n + 1
      k = k + 1
    elseif os.getenv("BENCH_DEBUG") then
      io.stderr:write(status .. " " .. body .. "\n")
    end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "errors_status": %d, ' ..
    '"errors_connect": %d, "errors_read": %d, "errors_write": %d, "errors_timeout": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect, e.read, e.write, e.timeout))
end

