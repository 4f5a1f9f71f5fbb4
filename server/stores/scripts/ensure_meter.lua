-- REQ {name, seed}: the first call creates the meter at its seed, paid by the house
if store_lost() then return err('store_lost') end
local account = 'meter:' .. REQ.name
if redis.call('HSETNX', SEEDS, REQ.name, cents(REQ.seed)) == 1 then
  local have = balance(account)
  if have < REQ.seed then
    move({'', NULL, 'reseed', 'house', account, REQ.seed - have}, false)
  end
end
return ok(balance(account))
