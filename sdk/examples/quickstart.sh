#!/bin/sh
# The quickstart with curl (README: Quickstart): from the demo key to a completed
# order and a read of the ledger.
#
#   TOPUP_API_URL=http://localhost:3000 TOPUP_API_KEY=<the demo key npm start printed> sh sdk/examples/quickstart.sh
set -eu
API="${TOPUP_API_URL:-http://localhost:3000}"
KEY="${TOPUP_API_KEY:?set TOPUP_API_KEY to your key (npm start prints the demo key)}"
# Your own id for this purchase, and its idempotency key: sending this order again never buys twice.
TRXID="${TRXID:-quickstart-$(date +%s)}"
call() { curl -sS --fail-with-body -H "X-API-Key: $KEY" "$@"; echo; }

echo "# 1. balance and catalog"
call "$API/balance"
call "$API/products"
echo "# 2. order the 60 UC pack for player 12345678"
call -H "Content-Type: application/json" -d "{\"pid\":\"SVCBR60\",\"trxid\":\"$TRXID\",\"userId\":\"12345678\"}" "$API/orders"
echo "# 3. wait (up to 30 s) for it to finish; the trxid is a valid order reference"
call "$API/orders/$TRXID?wait=30"
echo "# 4. the ledger, newest first"
call "$API/ledger?pageSize=5"
