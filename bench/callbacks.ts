/**
 * Callback verification cost per KiB of body: form and JSON callbacks of 1, 16 and 64 KiB (the
 * signed fields plus padding), and a hostile 64 KiB JSON body of thousands of numeric members, the
 * shape that once cost a regular expression over the whole body per member. Linear work shows as a
 * flat µs/KiB across sizes.
 */

import { CardGateway, sign } from '@paywire/card-gateway'
import { interleave, median, opsPerSecond } from './measure.js'
import { CREDENTIALS } from './requests.js'

const SIGNED = {
  id: 'pay-123',
  order_number: 'order-1001',
  order_amount: '10.00',
  order_currency: 'USD',
  order_description: 'Bench order',
}
const HASH = sign(Object.values(SIGNED), CREDENTIALS.password)
const LIMIT = 64 * 1024

function formBody(bytes: number): string {
  const base = new URLSearchParams({ ...SIGNED, type: 'sale', status: 'success', hash: HASH }).toString()
  return `${base}&pad=${'p'.repeat(Math.max(0, bytes - base.length - 5))}`
}

function jsonBody(bytes: number): string {
  const base = JSON.stringify({ ...SIGNED, type: 'sale', status: 'success', hash: HASH }).slice(0, -1)
  return `${base},"pad":"${'p'.repeat(Math.max(0, bytes - base.length - 10))}"}`
}

/** Thousands of top-level numeric members before the signed ones: about 64 KiB in all. */
function hostileJsonBody(): string {
  const signed = JSON.stringify({ ...SIGNED, hash: HASH }).slice(1)
  const members: string[] = []
  let size = signed.length + 2
  for (let i = 0; size < LIMIT - 32; i++) {
    const member = `"k${i}":${i}.25`
    members.push(member)
    size += member.length + 1
  }
  return `{${members.join(',')},${signed}`
}

export interface CallbackCase {
  readonly body: string
  readonly kib: number
  readonly verifiesPerSec: number
  /** Median µs per KiB of body. */
  readonly usPerKib: number
}

export interface CallbackResult {
  readonly what: string
  readonly cases: Record<string, CallbackCase>
}

export async function measureCallbacks(rounds: number, durationMs: number): Promise<CallbackResult> {
  const gw = new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: CREDENTIALS.merchantKey,
    clientKey: CREDENTIALS.clientKey,
    password: CREDENTIALS.password,
  })
  const bodies: Record<string, string> = {
    'form 1 KiB': formBody(1024),
    'form 16 KiB': formBody(16 * 1024),
    'form 64 KiB': formBody(LIMIT),
    'json 1 KiB': jsonBody(1024),
    'json 16 KiB': jsonBody(16 * 1024),
    'json 64 KiB': jsonBody(LIMIT),
    'json 64 KiB, hostile numeric members': hostileJsonBody(),
  }
  for (const body of Object.values(bodies)) gw.callbacks.verify(body) // each one verifies
  const names = Object.keys(bodies)
  const samples = await interleave(names, rounds, async (name) => {
    const body = bodies[name] as string
    const ops = opsPerSecond(() => gw.callbacks.verify(body), durationMs)
    await new Promise((resolve) => setImmediate(resolve))
    return ops
  })
  const cases: Record<string, CallbackCase> = {}
  for (const name of names) {
    const body = bodies[name] as string
    const kib = Buffer.byteLength(body) / 1024
    const verifiesPerSec = median(samples[name] as number[])
    cases[name] = { body: name, kib, verifiesPerSec, usPerKib: 1e6 / verifiesPerSec / kib }
  }
  return { what: 'gw.callbacks.verify(rawBody): cap, one parse, signed-field check, hash', cases }
}
