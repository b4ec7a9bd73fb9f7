/**
 * Callback verification cost per KiB of body, and whether it scales linearly. Form and JSON callbacks
 * (the signed fields plus one padding field) of 1, 16 and 64 KiB under the default cap, and of 1 and
 * 4 MiB under a raised `maxBodyBytes`; hostile 64 KiB bodies (thousands of tiny fields, 5 000 levels
 * of nesting, a 30 000-element array: refused) and the costliest shapes the limits still accept
 * (240 fields of escaped JSON text or percent-encoded form text, a whitespace run). Linear work shows as a flat µs/KiB: the scaling
 * rows are the paired per-round ratio of µs/KiB at 4 MiB to µs/KiB at 64 KiB.
 */

import { performance } from 'node:perf_hooks'
import { CardGateway, sign } from '@paywire/card-gateway'
import { interleave, median } from './measure.js'
import { CREDENTIALS } from './requests.js'
import { type Spread, spread } from './throughput.js'

const SIGNED = {
  id: 'pay-123',
  order_number: 'order-1001',
  order_amount: '10.00',
  order_currency: 'USD',
  order_description: 'Bench order',
}
const HASH = sign(Object.values(SIGNED), CREDENTIALS.password)
const KIB = 1024
const LIMIT = 64 * KIB
/** The raised cap the MiB bodies are verified under. */
const RAISED_LIMIT = 4 * KIB * KIB

const FORM_BASE = new URLSearchParams({ ...SIGNED, type: 'sale', status: 'success', hash: HASH }).toString()
/** The signed JSON members without the opening brace. */
const JSON_SIGNED = JSON.stringify({ ...SIGNED, type: 'sale', status: 'success', hash: HASH }).slice(1)

function formBody(bytes: number): string {
  return `${FORM_BASE}&pad=${'p'.repeat(Math.max(0, bytes - FORM_BASE.length - 5))}`
}

function jsonBody(bytes: number): string {
  return `{"pad":"${'p'.repeat(Math.max(0, bytes - JSON_SIGNED.length - 10))}",${JSON_SIGNED}`
}

/** `{<members>,<signed>}` with as many members from `member(i)` as fit in `bytes`. */
function jsonMembers(bytes: number, member: (i: number) => string): string {
  const members: string[] = []
  let size = JSON_SIGNED.length + 2
  for (let i = 0; ; i++) {
    const next = member(i)
    if (size + next.length + 1 > bytes) break
    members.push(next)
    size += next.length + 1
  }
  return `{${members.join(',')},${JSON_SIGNED}`
}

/** Thousands of tiny top-level numeric members: once a regular expression per member, now refused. */
const tinyMembers = () => jsonMembers(LIMIT, (i) => `"k${i}":${i}.25`)

/** Thousands of tiny form pairs: refused before any is decoded. */
function tinyPairs(): string {
  const pairs: string[] = []
  let size = FORM_BASE.length
  for (let i = 0; size < LIMIT - 32; i++) {
    pairs.push(`k${i}=${i}`)
    size += pairs[i]?.length ?? 0
    size++
  }
  return `${pairs.join('&')}&${FORM_BASE}`
}

/** The body: about 10 KB, nested 5 000 levels deep. */
const deep = () => `{"custom_data":${'['.repeat(5_000)}${']'.repeat(5_000)},${JSON_SIGNED}`

/** Refused: one member holding an array of about 30 000 small numbers (each element is a field). */
function numberArray(): string {
  const room = LIMIT - JSON_SIGNED.length - 20
  return `{"custom_data":[${Array.from({ length: Math.floor(room / 2) }, () => '7').join(',')}],${JSON_SIGNED}`
}

/** Fields that fill a 64 KiB body while the limits still accept it (the 8 signed ones included). */
const WIDEST = 240
const fieldBytes = (base: number) => Math.floor((LIMIT - base) / WIDEST) - 12

/** Accepted: 240 members, each a string written entirely as `\u00e9` escapes (each one decoded). */
function escapedJson(): string {
  const value = '\\u00e9'.repeat(Math.floor(fieldBytes(JSON_SIGNED.length) / 6))
  return `{${Array.from({ length: WIDEST }, (_, i) => `"k${i}":"${value}"`).join(',')},${JSON_SIGNED}`
}

/** Accepted: 240 pairs, each value percent-encoded UTF-8 (`%C3%A9`) throughout. */
function percentForm(): string {
  const value = '%C3%A9'.repeat(Math.floor(fieldBytes(FORM_BASE.length) / 6))
  return `${Array.from({ length: WIDEST }, (_, i) => `k${i}=${value}`).join('&')}&${FORM_BASE}`
}

/** Accepted: JSON whitespace filling the body between two members (read one character at a time). */
const whitespaceJson = () => `{"pad":${' '.repeat(LIMIT - JSON_SIGNED.length - 12)}1,${JSON_SIGNED}`

export interface CallbackCase {
  readonly body: string
  readonly kib: number
  /** `maxBodyBytes` the body was verified under. */
  readonly maxBodyBytes: number
  /** `verified`, or the `SignatureVerificationError` reason it is refused with. */
  readonly outcome: string
  readonly verifiesPerSec: number
  /** Median µs per call. */
  readonly usPerCall: number
  /** Median µs per KiB of body. */
  readonly usPerKib: number
}

export interface CallbackResult {
  readonly what: string
  readonly cases: Record<string, CallbackCase>
  /** Paired per round: µs/KiB at 4 MiB ÷ µs/KiB at 64 KiB (1 is perfectly linear). */
  readonly scaling: Record<'form' | 'json', Spread>
}

/**
 * Calls per second of `fn` over about `durationMs`, timing every call: a 4 MiB body takes
 * milliseconds, so the fixed batches of the signer's loop would overrun the window by seconds.
 */
function callsPerSecond(fn: () => unknown, durationMs: number): number {
  let calls = 0
  const start = performance.now()
  let now = start
  do {
    fn()
    calls++
    now = performance.now()
  } while (now - start < durationMs)
  return calls / ((now - start) / 1_000)
}

/** What one verify of `body` ends in. */
function outcomeOf(verify: () => unknown): string {
  try {
    verify()
    return 'verified'
  } catch (error) {
    return (error as { reason?: string }).reason ?? String(error)
  }
}

export async function measureCallbacks(rounds: number, durationMs: number): Promise<CallbackResult> {
  const gw = new CardGateway({
    checkoutUrl: 'https://checkout.example',
    s2sUrl: 'https://s2s.example',
    merchantKey: CREDENTIALS.merchantKey,
    clientKey: CREDENTIALS.clientKey,
    password: CREDENTIALS.password,
  })
  const bodies: Record<string, { body: string; maxBodyBytes: number; expect: string }> = {}
  const add = (name: string, body: string, expect = 'verified', maxBodyBytes = LIMIT) => {
    bodies[name] = { body, maxBodyBytes, expect }
  }
  for (const [label, make] of [
    ['form', formBody],
    ['json', jsonBody],
  ] as const) {
    add(`${label} 1 KiB`, make(KIB))
    add(`${label} 16 KiB`, make(16 * KIB))
    add(`${label} 64 KiB`, make(LIMIT))
    add(`${label} 1 MiB (raised cap)`, make(KIB * KIB), 'verified', RAISED_LIMIT)
    add(`${label} 4 MiB (raised cap)`, make(RAISED_LIMIT), 'verified', RAISED_LIMIT)
  }
  add('json 64 KiB, thousands of tiny members', tinyMembers(), 'too_many_fields')
  add('form 64 KiB, thousands of tiny pairs', tinyPairs(), 'too_many_fields')
  add('json 10 KB, 5 000 levels deep', deep(), 'too_deep')
  add('json 64 KiB, 30 000 array elements', numberArray(), 'too_many_fields')
  add('json 64 KiB, 240 members of \\u escapes', escapedJson())
  add('form 64 KiB, 240 percent-encoded pairs', percentForm())
  add('json 64 KiB, one whitespace run', whitespaceJson())

  const outcomes: Record<string, string> = {}
  for (const [name, { body, maxBodyBytes, expect }] of Object.entries(bodies)) {
    if (Buffer.byteLength(body) > maxBodyBytes) throw new Error(`bench body "${name}" is over its cap`)
    outcomes[name] = outcomeOf(() => gw.callbacks.verify(body, { maxBodyBytes }))
    // A body meant to verify must: timing a refusal instead would flatter the figures. A hostile
    // body's outcome is reported as it is (before the shape limits, the deep one threw RangeError).
    if (expect === 'verified' && outcomes[name] !== expect) {
      throw new Error(`bench body "${name}" does not verify: ${outcomes[name]}`)
    }
  }
  const names = Object.keys(bodies)
  const samples = await interleave(names, rounds, async (name) => {
    const { body, maxBodyBytes } = bodies[name] as { body: string; maxBodyBytes: number }
    const calls = callsPerSecond(() => {
      try {
        gw.callbacks.verify(body, { maxBodyBytes })
      } catch {
        // the refused bodies: their refusal is what is timed
      }
    }, durationMs)
    // Yield between windows so timers and GC are not starved.
    await new Promise((resolve) => setImmediate(resolve))
    return calls
  })
  await gw.close()

  const kibOf = (name: string) => Buffer.byteLength(bodies[name]?.body ?? '') / KIB
  const cases: Record<string, CallbackCase> = {}
  for (const name of names) {
    const kib = kibOf(name)
    const verifiesPerSec = median(samples[name] as number[])
    cases[name] = {
      body: name,
      kib,
      maxBodyBytes: bodies[name]?.maxBodyBytes ?? LIMIT,
      outcome: outcomes[name] ?? '',
      verifiesPerSec,
      usPerCall: 1e6 / verifiesPerSec,
      usPerKib: 1e6 / verifiesPerSec / kib,
    }
  }
  // µs/KiB = 1e6 / (calls/s × KiB): the ratio of the two in one round.
  const scalingOf = (label: 'form' | 'json') => {
    const small = `${label} 64 KiB`
    const large = `${label} 4 MiB (raised cap)`
    const smallSamples = samples[small] as number[]
    return spread(
      (samples[large] as number[]).map(
        (largeCalls, round) => ((smallSamples[round] ?? Number.NaN) * kibOf(small)) / (largeCalls * kibOf(large)),
      ),
    )
  }
  return {
    what: 'gw.callbacks.verify(rawBody): cap, one parse (shape limits included), signed-field check, hash',
    cases,
    scaling: { form: scalingOf('form'), json: scalingOf('json') },
  }
}
