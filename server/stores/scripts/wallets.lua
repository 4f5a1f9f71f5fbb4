-- REQ [player ids]: their wallets, read in one step so balance and held agree
return ok(wallets(REQ))
