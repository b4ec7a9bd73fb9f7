// The floor of cold-start.ts's first answer: raw undici's first answer to the same request (the card
// gateway's GET_TRANS_STATUS form, or remittance's bank list) over a loopback socket, its JSON read,
// then `answered` printed (cold-start.ts times the first answer to that line).
// node first-undici.mjs card|remittance <url>
import { request } from 'undici'

const [kind, url] = process.argv.slice(2)
const { statusCode, body } =
  kind === 'card'
    ? await request(`${url}/post`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'action=GET_TRANS_STATUS&client_key=bench-client-key&trans_id=t-1&hash=0',
      })
    : await request(`${url}/api/lookup/banks`, { headers: { 'x-api-key': 'bench-api-key' } })
JSON.parse(await body.text())
if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`)
process.stdout.write('answered\n')
