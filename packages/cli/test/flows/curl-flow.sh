#!/usr/bin/env bash
# A merchant without our SDK: purchase → the payer pays on the hosted page → status → capture →
# credit against `paywire sim`, with curl for HTTP, jq for JSON and coreutils for the signature.
# Env: CARD_URL, MERCHANT_KEY, CLIENT_KEY, PASSWORD, ORDER.
set -euo pipefail

# sha1(md5(UPPER(text + password))), both as lowercase hex; tr uppercases ASCII a-z only.
sign() { printf '%s%s' "$1" "$PASSWORD" | tr 'a-z' 'A-Z' | md5sum | cut -d' ' -f1 | tr -d '\n' | sha1sum | cut -d' ' -f1; }
post_json() { curl -sS --fail-with-body -X POST "$CARD_URL$1" -H 'content-type: application/json' -d "$2"; }
post_form() { curl -sS --fail-with-body -X POST "$CARD_URL/post" "$@"; }

amount=10.00 currency=USD description='Blue shoes'

echo "1. purchase"
purchase=$(jq -n --arg mk "$MERCHANT_KEY" --arg order "$ORDER" --arg amount "$amount" --arg currency "$currency" \
  --arg description "$description" --arg hash "$(sign "$ORDER$amount$currency$description")" \
  '{merchant_key:$mk, operation:"purchase", req_token:true,
    order:{number:$order, amount:$amount, currency:$currency, description:$description},
    success_url:"https://shop.example/ok", cancel_url:"https://shop.example/cancel", hash:$hash}')
redirect_url=$(post_json /api/v1/session "$purchase" | jq -er .redirect_url)
echo "   redirect_url $redirect_url"

echo "2. the payer pays on the hosted page with the success test card"
curl -sS --fail-with-body -X POST "$redirect_url" -d 'expiry=01/2038' | grep -q 'Payment is now pending'

echo "3. status (Checkout, by order_id): authorised, with the card token"
status=$(post_json /api/v1/payment/status "$(jq -n --arg mk "$MERCHANT_KEY" --arg order "$ORDER" --arg hash "$(sign "$ORDER")" \
  '{merchant_key:$mk, order_id:$order, hash:$hash}')")
[ "$(jq -r .status <<<"$status")" = pending ]
card_token=$(jq -er .card_token <<<"$status")
trans_id=$(post_form --data-urlencode action=GET_TRANS_STATUS_BY_ORDER --data-urlencode "client_key=$CLIENT_KEY" \
  --data-urlencode "order_id=$ORDER" --data-urlencode "hash=$(sign "$ORDER")" | jq -er .trans_id)
echo "   trans_id $trans_id"

echo "4. capture (S2S CARD, form-encoded)"
captured=$(post_form --data-urlencode action=CAPTURE --data-urlencode "client_key=$CLIENT_KEY" \
  --data-urlencode "trans_id=$trans_id" --data-urlencode "hash=$(sign "$trans_id")")
[ "$(jq -r .status <<<"$captured")" = SETTLED ]

echo "5. credit (a refund to the card token)"
credit_order="$ORDER-R"
credit=$(jq -n --arg mk "$MERCHANT_KEY" --arg order "$credit_order" --arg amount "$amount" --arg currency "$currency" \
  --arg description "Refund" --arg token "$card_token" --arg hash "$(sign "$credit_order${amount}${currency}Refund")" \
  '{merchant_key:$mk, operation:"credit", order_id:$order, order_amount:$amount, order_currency:$currency,
    order_description:$description, card_token:$token, hash:$hash}')
[ "$(post_json /api/v1/payment/card/credit "$credit" | jq -r .result)" = SUCCESS ]

echo "6. a wrong hash is refused"
refused=$(curl -sS -X POST "$CARD_URL/post" --data-urlencode action=GET_TRANS_STATUS --data-urlencode "client_key=$CLIENT_KEY" \
  --data-urlencode "trans_id=$trans_id" --data-urlencode "hash=$(sign "x$trans_id")")
[ "$(jq -r .error_message <<<"$refused")" = 'Hash is not valid' ]
echo "done"
