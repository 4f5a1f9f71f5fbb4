-- REQ {op, ...}: the console's reads, each in one step.
local function hash_obj(key)
  local out, flat = obj(), redis.call('HGETALL', key)
  for i = 1, #flat, 2 do out[flat[i]] = raw(flat[i + 1]) end
  return out
end

if REQ.op == 'operator' then
  local entry = redis.call('HGET', OPERATORS, REQ.folded)
  return ok(entry and raw(entry) or NULL)
end

if REQ.op == 'operators' then
  local out = {}
  for _, entry in ipairs(redis.call('HVALS', OPERATORS)) do out[#out + 1] = raw(entry) end
  return ok(out)
end

if REQ.op == 'token' then
  local name = redis.call('GET', P .. 'optoken:' .. REQ.hash)
  if not name then return ok(NULL) end
  local entry = redis.call('HGET', OPERATORS, string.lower(name))
  if not entry then return ok(NULL) end
  return ok(cjson.decode(entry).name)
end

if REQ.op == 'action' then
  local key = action_key(REQ.id)
  local state = redis.call('HGET', key, 'state')
  if not state then return ok(NULL) end
  local row = redis.call('HGET', key, 'row')
  return ok(obj({state = state, row = row and raw(row) or NULL}))
end

if REQ.op == 'state' then
  return ok(obj({
    pending = hash_obj(PENDING), paused = hash_obj(PAUSED), suspended = hash_obj(SUSPENDED),
    seen = redis.call('EXISTS', P .. 'admin:seen') == 1,
  }))
end

if REQ.op == 'audit' then
  local key = REQ.target ~= '' and (AUDIT .. ':by:' .. REQ.target) or AUDIT
  local total = redis.call('LLEN', key)
  local last = total - 1 - REQ.offset
  local first = math.max(0, last - REQ.limit + 1)
  local rows = {}
  if last >= 0 and REQ.limit > 0 then
    local got = redis.call('LRANGE', key, first, last)
    for i = #got, 1, -1 do rows[#rows + 1] = raw(got[i]) end
  end
  return ok(obj({rows = rows, total = total}))
end

if REQ.op == 'published' then
  return ok(obj({tables = hash_obj(P .. 'admin:tables'), processes = hash_obj(P .. 'admin:procs')}))
end

local function profile(pid)
  local text = redis.call('HGET', P .. 'players', pid)
  if not text then return nil end
  local p = cjson.decode(text)
  return obj({player_id = pid, name = p.name, username = p.username or NULL})
end

if REQ.op == 'player' then
  local p = profile(REQ.player)
  if not p then return ok(NULL) end
  local s = redis.call('HGET', SUSPENDED, REQ.player)
  p.suspended = s and raw(s) or NULL
  return ok(p)
end

if REQ.op == 'find' then
  local out, seen = {}, {}
  local function add(pid)
    if seen[pid] or #out >= REQ.limit then return end
    local p = profile(pid)
    if p then
      seen[pid] = true
      out[#out + 1] = p
    end
  end
  add(REQ.query)
  local user = redis.call('HGET', P .. 'users', REQ.folded)
  if user then add(cjson.decode(user).player) end
  local cursor, scanned = '0', 0
  repeat
    local reply = redis.call('HSCAN', P .. 'players', cursor, 'COUNT', 500)
    cursor = reply[1]
    local flat = reply[2]
    for i = 1, #flat, 2 do
      scanned = scanned + 1
      local name = string.lower(cjson.decode(flat[i + 1]).name or '')
      if string.find(name, REQ.folded, 1, true) then add(flat[i]) end
    end
  until cursor == '0' or scanned >= REQ.max_scan or #out >= REQ.limit
  return ok(out)
end

if REQ.op == 'holds' then
  local out = {}
  for _, tid in ipairs(REQ.tables) do
    local rids = redis.call('SMEMBERS', open_key(tid))
    table.sort(rids)
    for _, rid in ipairs(rids) do
      local flat = redis.call('HGETALL', holds_key(rid))
      local amounts, owners = {}, {}
      for i = 1, #flat, 2 do
        local seat = string.match(flat[i], '^(.*):player$')
        if seat then owners[seat] = flat[i + 1] else amounts[flat[i]] = num(flat[i + 1]) end
      end
      for seat, amount in pairs(amounts) do
        if owners[seat] == REQ.player then
          out[#out + 1] = obj({round_id = rid, table = tid, seat = tonumber(seat), amount = amount})
        end
      end
    end
  end
  return ok(out)
end

if REQ.op == 'journal' then
  local key = round_key(REQ.round)
  local tid = redis.call('HGET', key, 'table')
  if not tid then return ok(NULL) end
  local ledger = {}
  for _, row in ipairs(redis.call('LRANGE', ledger_key(REQ.round), 0, -1)) do
    ledger[#ledger + 1] = raw(row)
  end
  local holds, flat = {}, redis.call('HGETALL', holds_key(REQ.round))
  local owners = {}
  for i = 1, #flat, 2 do
    local seat = string.match(flat[i], '^(.*):player$')
    if seat then owners[seat] = flat[i + 1] end
  end
  for i = 1, #flat, 2 do
    if not string.match(flat[i], ':player$') then
      holds[#holds + 1] = obj({seat = tonumber(flat[i]), player_id = owners[flat[i]] or NULL,
        amount = num(flat[i + 1])})
    end
  end
  return ok(obj({round_id = REQ.round, table = tid, state = state_of(REQ.round),
    ledger = ledger, holds = holds}))
end

if REQ.op == 'stats' then
  local out = obj()
  local names = {'hands', 'antes', 'wagered', 'returned', 'progressive_staked', 'progressive_paid'}
  for _, tid in ipairs(REQ.tables) do
    local totals = obj({rounds = 0})
    for _, n in ipairs(names) do totals[n] = 0 end
    for b = math.floor(REQ.since / REQ.hour_ms), math.floor(REQ.now / REQ.hour_ms) do
      for _, text in ipairs(redis.call('HVALS', P .. 'stats:' .. tid .. ':' .. cents(b))) do
        local row = cjson.decode(text)
        if row[1] >= REQ.since and row[1] <= REQ.now then
          totals.rounds = totals.rounds + 1
          for i, n in ipairs(names) do totals[n] = totals[n] + row[i + 1] end
        end
      end
    end
    out[tid] = totals
  end
  return ok(out)
end

return err('unknown_op', {op = REQ.op})
