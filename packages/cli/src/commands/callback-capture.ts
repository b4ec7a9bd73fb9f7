/**
 * `paywire callback capture`: records one real callback from your sandbox and says which known
 * signature formula, if any, verifies it. Where the platform publishes no formula (S2S CARD callbacks
 * on the seed signature, rule Platform 30), this is how a merchant learns theirs instead of guessing.
 */

import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CardGateway, CHECKOUT_CALLBACK_FIELDS, type PayerCard } from '@paywire/card-gateway'
import { flag, parse, text, wholeNumber } from '../args.js'
import { EXIT, type ExitCode, type Io, jsonLine, printable, UsageError } from '../io.js'
import { DEFAULT_PASSWORD_ENV, readPassword } from '../secrets.js'
import { payerOptions } from './sign.js'

/** The largest body recorded: a callback is a few hundred bytes. */
const MAX_BODY_BYTES = 64 * 1024

/** One formula tried: how the SDK is configured for it, and the verify options that test it. */
interface Candidate {
  readonly name: string
  /** The client option that makes the SDK verify such callbacks. */
  readonly option: string
  readonly fields?: readonly string[]
  readonly digest?: 'md5' | 'sha256'
  readonly signature?: 'card-md5-strrev'
}

/**
 * The formulas the platform is known to use (rules Platform 15, 19, 3) and, for S2S callbacks on the
 * seed signature, the seed chain over the identifiers its S2S requests sign: tried, never assumed.
 */
function candidates(s2s: boolean, payer: PayerCard | undefined): Candidate[] {
  const list: Candidate[] = []
  for (const digest of ['md5', 'sha256'] as const) {
    const suffix = digest === 'sha256' ? ", digest: 'sha256'" : ''
    if (!s2s) {
      list.push({
        name: `Checkout callback formula (id, order_number, order_amount, order_currency, order_description), ${digest}`,
        option: `the default${suffix ? ` with${suffix.slice(1)}` : ''}`,
        fields: CHECKOUT_CALLBACK_FIELDS,
        digest,
      })
      continue
    }
    for (const fields of [['trans_id'], ['order_id'], ['trans_id', 'order_id'], ['order_id', 'trans_id']]) {
      list.push({
        name: `seed chain over ${fields.join(', ')} + password, ${digest}`,
        option: `s2sCallbackFields: ${JSON.stringify(fields).replaceAll('"', "'")}${suffix}`,
        fields,
        digest,
      })
    }
  }
  if (s2s && payer !== undefined) {
    list.push({
      name: 'card-md5-strrev: md5(UPPER(strrev(email) + password + trans_id + strrev(first6 + last4)))',
      option: "signature: 'card-md5-strrev' with a payerLookup",
      signature: 'card-md5-strrev',
    })
  }
  return list
}

/** Waits for one POST on a loopback port, answers `OK` at once (a refusal would count toward blocking the URL), and returns its raw body. */
async function receiveOne(io: Io, port: number, host: string): Promise<Buffer> {
  let resolveBody: (body: Buffer) => void = () => {}
  const received = new Promise<Buffer>((resolve) => {
    resolveBody = resolve
  })
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('POST the callback here')
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK')
      resolveBody(Buffer.concat(chunks))
    })
  })
  server.listen(port, host)
  await once(server, 'listening')
  const { port: bound } = server.address() as AddressInfo
  io.err(`paywire callback capture: waiting for one callback on http://${host}:${bound}/ (answers OK; Ctrl-C stops)`)
  try {
    return await received
  } finally {
    server.close()
    server.closeAllConnections()
  }
}

/** `paywire callback capture --out callback.txt [--file body] [--port N]`. */
export async function capture(io: Io, argv: readonly string[]): Promise<ExitCode> {
  const command = 'callback capture'
  const parsed = parse(
    command,
    argv,
    {
      out: { type: 'string' },
      file: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'password-env': { type: 'string' },
      'payer-email': { type: 'string' },
      'card-first6': { type: 'string' },
      'card-last4': { type: 'string' },
      'card-token': { type: 'string' },
      json: { type: 'boolean' },
    },
    0,
  )
  const json = flag(parsed, 'json')
  const file = text(parsed, 'file')
  const out = text(parsed, 'out')
  if (file === undefined && out === undefined)
    throw new UsageError('--out <file> is required: where the raw body is recorded', command)
  const payer = payerOptions(command, parsed)
  const password = await readPassword(io, command, text(parsed, 'password-env') ?? DEFAULT_PASSWORD_ENV, true)
  let body: Buffer
  if (file !== undefined) {
    const { readFile } = await import('node:fs/promises')
    body = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${file}: ${error.code ?? String(error)}`, command)
    })
  } else {
    const port = wholeNumber(command, 'port', text(parsed, 'port') ?? '0', 0, 65_535)
    body = await receiveOne(io, port, text(parsed, 'host') ?? '127.0.0.1')
  }
  if (out !== undefined) await writeFile(out, body)
  const fields = Object.fromEntries(new URLSearchParams(body.toString('utf8')))
  const s2s = fields['action'] !== undefined && fields['type'] === undefined
  const tried = candidates(s2s, payer).map((candidate) => ({
    candidate,
    verified: verifies(body, password, candidate, payer),
  }))
  const match = tried.find((t) => t.verified)
  const shape = s2s ? `an S2S CARD callback (action ${printable(fields['action'] ?? '')})` : 'a Checkout callback'
  if (json) {
    io.out(
      jsonLine({
        recorded: out,
        shape: s2s ? 's2s' : 'checkout',
        fields: Object.keys(fields),
        verifiedBy: match?.candidate.name,
        option: match?.candidate.option,
        tried: tried.map((t) => t.candidate.name),
      }),
    )
  } else {
    if (out !== undefined)
      io.out(
        `recorded ${body.length} bytes to ${out}: ${shape}, fields ${Object.keys(fields).map(printable).join(', ')}`,
      )
    for (const t of tried) io.out(`  ${t.verified ? io.paint.green('verifies') : 'no      '}  ${t.candidate.name}`)
    if (match)
      io.out(
        io.paint.green(`verified by: ${match.candidate.name}. Configure the client with ${match.candidate.option}.`),
      )
    else
      io.out(
        io.paint.red(
          'no known formula verifies it: keep refusing such callbacks (the SDK does), and ask the gateway which fields it signs; the body is saved for them. Check the password first (sandbox and production differ).',
        ),
      )
  }
  return match ? EXIT.ok : EXIT.failure
}

function verifies(body: Buffer, password: string, candidate: Candidate, payer: PayerCard | undefined): boolean {
  const gw = new CardGateway({
    checkoutUrl: 'https://checkout.invalid',
    s2sUrl: 'https://s2s.invalid',
    merchantKey: 'unused',
    clientKey: 'unused',
    password,
    ...(candidate.signature ? { signature: candidate.signature, payerLookup: () => undefined } : {}),
  })
  try {
    gw.callbacks.verify(body, {
      ...(candidate.fields ? { fields: candidate.fields } : {}),
      ...(candidate.digest ? { digest: candidate.digest } : {}),
      ...(payer ? { payer } : {}),
      maxBodyBytes: MAX_BODY_BYTES,
    })
    return true
  } catch {
    return false
  } finally {
    void gw.close()
  }
}
