/** The help of every command: loaded by `paywire --help` without the SDKs, so help stays instant. */

const SECRETS = `Secrets: the card password is read from an environment variable (default PAYWIRE_CARD_PASSWORD,
or the one --password-env names) or from a hidden prompt on a terminal; never from an argument,
because any user of the machine can read a process's arguments (ps) and shells keep them in history.`

const EXITS = `Exit codes: 0 ok, 1 mismatch or failure, 2 usage error.`

export const HELP: Readonly<Record<string, string>> = {
  paywire: `paywire — a local simulator of the card gateway, remittance and bill payment services,
a signature debugger and a signed callback sender.

Usage: paywire <command> [options]

Commands:
  sim                 run the three simulators behind one local HTTP server
  sign <operation>    compute, explain or check a card request signature
  callback verify     verify a raw callback body and explain a mismatch
  callback send       post a correctly signed callback to your endpoint
  callback capture    record one real callback and say which known formula verifies it

Options:
  -h, --help          help of paywire or of a command (paywire sign --help)
  -v, --version       the version

Every command takes --json for output that scripts read, and colours only a terminal (never with NO_COLOR).
${EXITS}
Documentation: https://github.com/paywire/paywire/blob/main/docs/cli.md`,

  sim: `paywire sim — the three simulators (the same ones as @paywire/*/testing) behind one HTTP server.

Usage: paywire sim [options]

Options:
  --port <n>              port to listen on (default 4010; 0 picks a free one)
  --host <address>        address to bind (default 127.0.0.1; the sandbox credentials are public,
                          so binding another address exposes a server anyone can drive)
  --services <list>       which to serve: card, remittance (remit), bill-payment (bill); default all
  --seed <text>           make the card simulator's ids and tokens repeatable
  --signature <preset>    the card brand's signature: seed (default) or card-md5-strrev (S2S
                          actions verified, S2S callbacks signed with the strrev scheme; purchases
                          must name customer.email; Checkout keeps the seed formula)
  --callback-url <url>    POST each signed card callback there as payments change state; a non-2xx
                          answer or a time-out is retried (after 10 s, 30 s, 1 min, 5 min, 15 min)
  --callback-timeout <ms> how long a callback delivery waits for an answer (default 10000)
  --password-env <VAR>    the card password from $VAR (default sim-password); give it twice to
                          rehearse a rotation, the older first: the newer is in force, and
                          POST /__paywire/card/password {"env":"VAR"} switches the gateway
  --lenient               accept what the live services refuse: by default the simulators are strict
                          (card amounts must be JSON strings with the currency's decimals, "10.00"
                          not "10.0" or 10; success_url, cancel_url and term_url_3ds must be public
                          https URLs; remittance and bill bodies must pass the SDK's own checks)
  --json                  first stdout line: one JSON object with the URLs and credentials; then one
                          JSON object per request and per callback delivery
  -h, --help              this help

Base URLs (port 4010):
  card gateway   http://127.0.0.1:4010/card          (checkoutUrl and s2sUrl)
  remittance     http://127.0.0.1:4010/remittance    (baseUrl)
  bill payment   http://127.0.0.1:4010/bill-payment  (baseUrl)
  control API    http://127.0.0.1:4010/__paywire     (reset, clock, faults, ledger, payment states)

Each request is logged on one line: time, service, method, path, operation, status, duration.
Ctrl-C (SIGINT) or SIGTERM stops the server.

Examples:
  paywire sim
  paywire sim --port 0 --json --seed demo
  paywire sim --services card --signature card-md5-strrev
  paywire sim --callback-url http://127.0.0.1:3000/callbacks/card
  paywire sim --lenient
  curl -X POST http://127.0.0.1:4010/__paywire/clock/advance -d '{"ms":16000}'

${EXITS}`,

  sign: `paywire sign — the hash of a card request: sha1(md5(UPPER(inputs… + password))), hex.

Usage: paywire sign <operation> --field name=value … [options]

<operation> is an S2S action (such as CAPTURE or GET_TRANS_STATUS), an SDK name (such as
s2s.capture or checkout.purchase), or callback (the Checkout callback signature); an unknown
name is answered with every one the SDK signs. Only the operation's hash inputs are hashed, in
their order.

Options:
  --field <name=value>    a wire field, repeatable; nested Checkout fields as order.number=…
  --password-env <VAR>    read the password from $VAR (default PAYWIRE_CARD_PASSWORD)
  --digest <md5|sha256>   inner digest (default md5; sha256 is an account option)
  --uppercase <ascii|unicode>  uppercasing (default ascii: only a–z, like PHP strtoupper)
  --signature <preset>    seed (default) or card-md5-strrev: S2S actions signed
                          md5(UPPER(strrev(email) + password + trans_id + strrev(first6 + last4)))
                          and siblings; Checkout operations keep the seed formula
  --payer-email <email>   with card-md5-strrev: the payer email of the original payment
  --card-first6 <digits>  with --card-last4: the card number's first 6 and last 4 digits
  --card-last4 <digits>     (only these are hashed; never give the whole number)
  --card-token <token>    instead of the digits, when the payment used a card token
  --inputs <a,b,…>        hash inputs in order, replacing the operation's (CREATE_SCHEDULE has
                          none published: name them)
  --explain               print each step: inputs in order, the concatenation and the uppercased
                          text (password masked), the inner hex digest and the hash
  --compare <hash>        say whether <hash> is right and, if not, which common mistakes produce it
                          (Unicode uppercasing, another amount string, input order, sha256, spaces…)
  --json                  one JSON object
  -h, --help              this help

${SECRETS}

Examples:
  PAYWIRE_CARD_PASSWORD=sim-password paywire sign GET_TRANS_STATUS --field trans_id=8f0c…
  paywire sign checkout.purchase --field order.number=A-1 --field order.amount=10.00 \\
    --field order.currency=USD --field order.description=Shoes --explain
  paywire sign CAPTURE --field trans_id=8f0c… --compare 3b1d…
  paywire sign CAPTURE --signature card-md5-strrev --field trans_id=8f0c… \\
    --payer-email payer@example.com --card-first6 411111 --card-last4 1111 --explain

${EXITS} (1: --compare found a mismatch)`,

  callback: `paywire callback — verify a callback body, or send a signed one.

Usage: paywire callback verify [--file <path>] [options]
       paywire callback send --url <url> [options]
       paywire callback capture --out <file> [options]

See paywire callback verify --help, paywire callback send --help and paywire callback capture --help.
${EXITS}`,

  'callback verify': `paywire callback verify — verify a raw card callback body and explain a mismatch.

Usage: paywire callback verify [--file <path>] [options] < body

The body is read from --file or stdin exactly as received (form-encoded or JSON): the signature
covers the received strings, so copy the raw body, not a parsed or pretty-printed one. A body
ending with a newline (echo, an editor) is not verified: the gateway never sends one; the answer
says whether it verifies without it (send it with printf '%s').

Options:
  --file <path>           the raw body (default: stdin)
  --content-type <type>   the request's Content-Type; a body that does not match it was re-encoded
  --password-env <VAR>    read the password from $VAR (default PAYWIRE_CARD_PASSWORD); repeat it
                          during a password rotation, the one your requests sign with first: a
                          body signed with any of them verifies, and the answer names the one that did
  --fields <a,b,…>        signed fields in order (default id, order_number, order_amount,
                          order_currency, order_description)
  --digest <md5|sha256>   inner digest (default md5)
  --uppercase <ascii|unicode>  uppercasing (default ascii)
  --signature <preset>    seed (default) or card-md5-strrev; an S2S callback on card-md5-strrev
                          needs --payer-email with --card-first6/--card-last4 (or --card-token)
  --show-expected         on a rejected body, also print the hash it should carry, the signing
                          steps and the likely mistake; without it only the reason is printed
                          (the right hash for a body someone else chose would let them forge it)
  --json                  one JSON object
  -h, --help              this help

${SECRETS}
--show-expected is refused next to a --password argument.

Examples:
  paywire callback verify --file callback.txt
  pbpaste | paywire callback verify --json
  PAYWIRE_CARD_PASSWORD=sim-password paywire callback verify --show-expected --file callback.txt

${EXITS} (1: the signature does not verify)`,

  'callback send': `paywire callback send — POST a correctly signed card callback to your endpoint.

Usage: paywire callback send --url <url> [options]

Options:
  --url <url>             your callback endpoint (required)
  --type <type>           sale, 3ds, capture, refund, void, recurring, … (default sale)
  --status <status>       success, fail, waiting, undefined (default success)
  --order <number>        order_number (default a new one)
  --amount <amount>       order_amount (default 10.00)
  --currency <code>       order_currency (default USD)
  --description <text>    order_description (default "paywire test callback")
  --id <payment id>       id (default a new UUID)
  --field <name=value>    any other field, repeatable (e.g. order_status=settled, card_token=…)
  --password-env <VAR>    read the password from $VAR (default PAYWIRE_CARD_PASSWORD)
  --digest <md5|sha256>   inner digest (default md5)
  --timeout <ms>          how long to wait for the answer (default 10000)
  --json                  one JSON object
  -h, --help              this help

The body is form-encoded and signed over id, order_number, order_amount, order_currency,
order_description and the password. The platform expects the answer 2xx with the body OK.

${SECRETS}

Examples:
  PAYWIRE_CARD_PASSWORD=sim-password paywire callback send --url http://127.0.0.1:3000/cb
  paywire callback send --url http://127.0.0.1:3000/cb --type refund --field order_status=refund

${EXITS} (1: no answer, or an answer that is not 2xx)`,

  'callback capture': `paywire callback capture — record one real callback and say which known formula verifies it.

Usage: paywire callback capture --out <file> [options]

Listens on a loopback port for one POST (point your sandbox account's callback URL at it, through a
tunnel), answers it 200 OK at once (a refusal would count toward blocking the URL), saves the raw
body to --out, then tries the formulas the platform is known to use: for a Checkout callback the
published one (md5 and sha256); for an S2S CARD callback (it carries action) the seed chain over
trans_id, order_id and both, and card-md5-strrev when the payer options are given. It says which
one verifies it and the client option to set, or that none does (keep refusing: the SDK does).

Options:
  --out <file>            where the raw body is written (required unless --file)
  --file <file>           a body recorded before, instead of listening
  --port <n>              port to listen on (default 0: a free one, printed on stderr)
  --host <address>        address to bind (default 127.0.0.1)
  --password-env <VAR>    read the password from $VAR (default PAYWIRE_CARD_PASSWORD)
  --payer-email, --card-first6, --card-last4, --card-token
                          the payment's payer data, to try card-md5-strrev on an S2S callback
  --json                  one JSON object
  -h, --help              this help

${SECRETS}

Examples:
  PAYWIRE_CARD_PASSWORD=… paywire callback capture --out capture.txt --port 8081
  paywire callback capture --file capture.txt --json

${EXITS} (1: no known formula verifies it)`,
}
