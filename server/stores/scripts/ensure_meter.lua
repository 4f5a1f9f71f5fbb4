-- REQ {name, seed, at}: the first call creates the meter at its seed, paid by the house
if store_lost() then return err('store_lost') end
local account = 'meter:' .. REQ.name
if redis.call('HSETNX', SEEDS, REQ.name, cents(REQ.seed)) == 1 then
  local have = balance(account)
  if have < REQ.seed then
    local paid = {'', NULL, 'reseed', 'house', account, REQ.seed - have}
    move_outside_round('seed:' .. REQ.name, REQ.at, paid)
  end
end
return ok(balance(account))
