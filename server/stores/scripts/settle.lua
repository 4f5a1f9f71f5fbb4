-- REQ {round, digest, table, epoch, transfers, claims, jackpot, seed, players, now, stat,
--      hour_ms, stats_ttl, ttl, history_cap, hits_cap}; TEXT the round record (JSON, stored
--      as is).
-- Pays a round and closes it in one step: its transfers, then the percent claims
-- in seat order against the shared meter (each pays floor(meter * bp / 10000),
-- then the house tops the meter up to its seed), the jackpot hits, the hold
-- statistics' row, the players' and the table's history. Idempotent: a settled round returns its stored result
-- when replayed with the same transfers and refuses different ones.
if store_lost() then return err('store_lost') end  -- no money into a wiped store
local rid = REQ.round
local key = round_key(rid)
local state = state_of(rid)
if state == 'settled' then
  if redis.call('HGET', key, 'digest') ~= REQ.digest then return err('conflict', {round = rid}) end
  return '{"ok":' .. redis.call('HGET', key, 'result') .. ',"replayed":true}'
end
local refused = fence_error(REQ.table, REQ.epoch)
if refused then return refused end
if state == 'voided' then return err('closed', {round = rid, state = state}) end
-- a round is opened by its first bet: one unknown here went with data gone back in time
if not state then return err('unknown_round', {round = rid}) end
local tid = round_of(rid).table
if tid and tid ~= REQ.table then return err('wrong_table', {round = rid, table = tid}) end
-- the ledger holds the raise of every seat the record says raised: one without went with
-- data gone back in time (paying it back paid a raise never taken). A seat's ante is
-- checked by its decision, which releases the hold the ante placed (apply.lua)
do
  local raises = {}
  for _, row in ipairs(redis.call('LRANGE', ledger_key(rid), 0, -1)) do
    local t = cjson.decode(row)
    if t[3] == 'raise' then raises[t[2]] = true end
  end
  for _, s in ipairs(cjson.decode(TEXT).seats or {}) do
    if s.decision == 'raise' and not raises[s.seat] then
      return err('unknown_round', {round = rid})
    end
  end
end
local account, needed = short_account(REQ.transfers)
if account then return err('cover', {account = account, needed = needed}) end
tid = REQ.table

-- floor(meter * bp / 10000) without a product above 2^53: split meter = q * 10000 + r
local function percent(meter, bp)
  local r = math.fmod(meter, 10000)
  return (meter - r) / 10000 * bp + math.floor(r * bp / 10000)
end

local touched, ids = {}, {}
local function touch(t)
  for _, a in ipairs({t[4], t[5]}) do
    if is_player(a) and not touched[a] then
      touched[a] = true
      ids[#ids + 1] = string.sub(a, 8)
    end
  end
end

for _, t in ipairs(REQ.transfers) do
  move(t, true)
  touch(t)
end

local meter = 'meter:' .. REQ.jackpot
local claims = REQ.claims
table.sort(claims, function(a, b) return a[2] < b[2] end)
local paid, jackpots = {}, obj()
for _, c in ipairs(claims) do
  local before = balance(meter)
  local amount = percent(math.max(before, 0), c[5])
  if amount > 0 then
    local t = {rid, c[2], 'jackpot', meter, 'player:' .. c[3], amount}
    move(t, true)
    touch(t)
  end
  local reseed = math.max(0, REQ.seed - balance(meter))
  if reseed > 0 then move({rid, c[2], 'reseed', 'house', meter, reseed}, true) end
  local after = balance(meter)
  paid[#paid + 1] = {c[2], c[3], amount, after}
  jackpots[cents(c[2])] = amount
  push_capped(P .. 'hits:' .. REQ.jackpot, enc(obj({
    round_id = rid, table = tid, seat = c[2], player_id = c[3], category = c[4],
    percent_bp = c[5], amount = amount, meter_before = before, reseed = reseed,
    meter_after = after, settled_at = REQ.now,
  })), REQ.hits_cap)
end
release_round(rid)

-- the round's row of the hold statistics (admin.round_stat: [settled_at, hands, antes,
-- wagered, returned, progressive staked, progressive paid]), its percent prizes added:
-- written with the settlement, so no crash or backup parts the two
local stat = {}
for i = 2, #REQ.stat do stat[#stat + 1] = REQ.stat[i] end
for _, p in ipairs(paid) do stat[7] = stat[7] + p[3] end
local stats_key = P .. 'stats:' .. tid .. ':' .. cents(math.floor(REQ.now / REQ.hour_ms))
redis.call('HSET', stats_key, rid, enc(stat))
redis.call('EXPIRE', stats_key, REQ.stats_ttl)

-- history: each player's balance before is after minus the round's net for them
local nets = {}
for _, row in ipairs(redis.call('LRANGE', ledger_key(rid), 0, -1)) do
  local t = cjson.decode(row)
  nets[t[4]] = (nets[t[4]] or 0) - t[6]
  nets[t[5]] = (nets[t[5]] or 0) + t[6]
end
-- every entry holds the round record: the part they share is encoded once (as `enc`
-- of the whole entry would, its keys in order)
local shared = '"jackpots":' .. enc(jackpots) .. ',"record":' .. TEXT .. ',"settled_at":'
  .. cents(REQ.now) .. '}'
for _, pid in ipairs(REQ.players) do
  local after = balance('player:' .. pid)
  local before = after - (nets['player:' .. pid] or 0)
  push_capped(P .. 'hist:player:' .. pid, '{"balance_after":' .. cents(after)
    .. ',"balance_before":' .. cents(before) .. ',' .. shared, REQ.history_cap)
end
push_capped(P .. 'hist:table:' .. tid, '{' .. shared, REQ.history_cap)

table.sort(ids)
local result = enc(obj({
  paid = paid, wallets = wallets(ids), meters = obj({[REQ.jackpot] = balance(meter)}),
}))
redis.call('HSET', key, 'digest', REQ.digest, 'result', result)
close_round(rid, 'settled', REQ.ttl)
return '{"ok":' .. result .. ',"replayed":false}'
