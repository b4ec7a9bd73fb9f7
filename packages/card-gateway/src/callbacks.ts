/** Callback verification over the raw body: parse without normalising, sign the received strings, compare in constant time. */

import { timingSafeEqual } from 'node:crypto'
import { type Secret, SignatureVerificationError } from '@paywire/core'
import { type DigestName, explainSignature, sign } from './signature.js'

/** Checkout callback hash input order (PLATFORM_NOTES); the password is appended last. */
export const CHECKOUT_CALLBACK_FIELDS: readonly string[] = Object.freeze([
  'id',
  'order_number',
  'order_amount',
  'order_currency',
  'order_description',
])

/** Callback `type` values (PLATFORM_NOTES); unknown values still parse. */
export type CallbackType =
  | 'sale'
  | '3ds'
  | 'redirect'
  | 'capture'
  | 'refund'
  | 'void'
  | 'recurring'
  | 'chargeback'
  | 'debit'
  | 'transfer'
  | 'credit'
  | (string & {})

/** Callback `status` values (PLATFORM_NOTES); unknown values still parse. */
export type CallbackStatus = 'success' | 'fail' | 'waiting' | 'undefined' | (string & {})

/**
 * A verified callback: every received field as its exact string, the known ones typed
 * (spec Events 3: `transStatus`, `eci`, `protocolVersion` after 3DS).
 */
export interface CallbackEvent {
  readonly id?: string
  readonly order_number?: string
  readonly order_amount?: string
  readonly order_currency?: string
  readonly order_description?: string
  readonly order_status?: string
  readonly type?: CallbackType
  readonly status?: CallbackStatus
  readonly reason?: string
  /** 3DS transaction status; `C` (challenge) with no later callback means a stuck challenge. */
  readonly transStatus?: string
  readonly eci?: string
  readonly protocolVersion?: string
  /** S2S CARD callbacks carry these (PLATFORM_NOTES). */
  readonly action?: string
  readonly result?: string
  readonly order_id?: string
  readonly trans_id?: string
  readonly hash: string
  readonly [field: string]: string | undefined
}

export interface CallbackOptions {
  /** Hash input field order; default `CHECKOUT_CALLBACK_FIELDS` (PLATFORM_NOTES). */
  readonly fields?: readonly string[]
  readonly digest?: DigestName
}

/** Verifies gateway callbacks (spec Events 2) with the client's password. */
export class Callbacks {
  readonly #password: Secret
  readonly #fields: readonly string[]
  readonly #digest: DigestName

  /** @internal */
  constructor(password: Secret, options: CallbackOptions = {}) {
    this.#password = password
    this.#fields = options.fields ?? CHECKOUT_CALLBACK_FIELDS
    this.#digest = options.digest ?? 'md5'
  }

  /**
   * Verifies a callback from its raw body (form-encoded, or JSON) and returns the typed event, or
   * throws `SignatureVerificationError`. Pass the body exactly as received: the signature covers
   * the received strings, so a re-parsed object (numbers, trimmed or re-encoded values) cannot be
   * verified reliably and is refused (spec Events 2).
   */
  verify(rawBody: string | Buffer | Uint8Array, options: CallbackOptions = {}): CallbackEvent {
    const fields = parseRawBody(rawBody)
    const order = options.fields ?? this.#fields
    const digest = options.digest ?? this.#digest
    const received = fields['hash']
    const present = order.filter((name) => fields[name] !== undefined)
    const missing = order.filter((name) => fields[name] === undefined)
    const diagnostic = () => {
      const explanation = explainSignature(
        order.map((name) => ({ name, value: fields[name] })),
        this.#password,
        digest,
      )
      return {
        fieldsUsed: [...order],
        fieldsPresent: present,
        fieldsMissing: missing,
        fieldsReceived: Object.keys(fields),
        digest,
        concatenation: explanation.concatenation,
      }
    }
    if (received === undefined || received === '') {
      throw new SignatureVerificationError(
        'missing_hash',
        'callback has no "hash" field; it cannot be verified.',
        diagnostic(),
      )
    }
    const expected = sign(
      order.map((name) => fields[name] ?? ''),
      this.#password,
      digest,
    )
    if (!constantTimeEqual(expected, received)) {
      const hint =
        missing.length > 0
          ? ` Fields ${missing.join(', ')} were absent; check the callback field order (option callbackFields).`
          : ' Check the password of this environment, the digest and the callback field order.'
      throw new SignatureVerificationError('hash_mismatch', `callback signature does not verify.${hint}`, diagnostic())
    }
    return fields as CallbackEvent
  }
}

/** Length-safe constant-time comparison: equal-length buffers only reach `timingSafeEqual`. */
function constantTimeEqual(expected: string, received: string): boolean {
  const a = Buffer.from(expected, 'utf8')
  const b = Buffer.from(received, 'utf8')
  if (a.length !== b.length) {
    timingSafeEqual(a, a) // same work either way
    return false
  }
  return timingSafeEqual(a, b)
}

const RAW_BODY_HINT =
  'callbacks.verify needs the raw request body (string, Buffer or Uint8Array) exactly as received: the signature covers the received strings, and a parsed object has lost them. In Express use express.raw({ type: "*/*" }) for the callback route; in Fastify add a content-type parser that keeps the body as a string or Buffer.'

/** Parses a form (or JSON) body into exact strings; refuses parsed objects and duplicate fields. */
export function parseRawBody(rawBody: unknown): Record<string, string> {
  let text: string
  if (typeof rawBody === 'string') text = rawBody
  else if (rawBody instanceof Uint8Array)
    text = Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8')
  else throw new SignatureVerificationError('not_raw_body', RAW_BODY_HINT, { receivedType: describeType(rawBody) })
  return text.trimStart().startsWith('{') ? parseJsonFields(text) : parseFormFields(text)
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function duplicate(name: string): SignatureVerificationError {
  return new SignatureVerificationError(
    'duplicate_field',
    `callback body carries the field "${name}" more than once; it is refused because a duplicated field makes the signed value ambiguous.`,
    { duplicateField: name },
  )
}

function parseFormFields(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null)
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in out) throw duplicate(name)
    out[name] = value
  }
  return { ...out }
}

/**
 * JSON callbacks: strings as they are; numbers keep their source text (`10.00` stays `10.00`,
 * which `JSON.parse` alone would turn into `10`); booleans and nested values as JSON text.
 */
function parseJsonFields(text: string): Record<string, string> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new SignatureVerificationError('unreadable_body', 'callback body starts like JSON but is not valid JSON.', {})
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SignatureVerificationError('unreadable_body', 'callback JSON body is not an object.', {})
  }
  const seen = topLevelKeys(text)
  const dup = seen.find((key, i) => seen.indexOf(key) !== i)
  if (dup !== undefined) throw duplicate(dup)
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === 'string') out[name] = value
    else if (typeof value === 'number') out[name] = numberSource(text, name) ?? String(value)
    else out[name] = JSON.stringify(value)
  }
  return out
}

/** The top-level keys of a JSON object text, in order (for duplicate detection). */
function topLevelKeys(text: string): string[] {
  const keys: string[] = []
  let depth = 0
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      if (depth === 1 && expectKey) keys.push(JSON.parse(text.slice(i, j + 1)) as string)
      expectKey = false
      i = j
    } else if (c === '{' || c === '[') {
      depth++
      expectKey = c === '{' && depth === 1
    } else if (c === '}' || c === ']') depth--
    else if (c === ',' && depth === 1) expectKey = true
  }
  return keys
}

function numberSource(text: string, name: string): string | undefined {
  const key = JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`${key}\\s*:\\s*(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)`).exec(text)
  return match?.[1]
}

const FINAL_ORDER_STATUS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  success: {
    sale: 'settled',
    capture: 'settled',
    recurring: 'settled',
    debit: 'settled',
    transfer: 'settled',
    credit: 'settled',
    refund: 'refund',
    void: 'void',
    chargeback: 'chargeback',
  },
  fail: { sale: 'decline', recurring: 'decline', debit: 'decline' },
}

/**
 * Whether a callback reports a final payment state: `type`, `status` and `order_status` must agree
 * (PLATFORM_NOTES: a `3ds` callback with `success` is not final).
 */
export function isFinal(event: CallbackEvent): boolean {
  if (event.type === undefined || event.status === undefined || event.order_status === undefined) return false
  const expected = FINAL_ORDER_STATUS[event.status]?.[event.type]
  return expected !== undefined && expected === event.order_status
}

/** Deliveries can repeat: deduplicate on `id + type + status` (PLATFORM_NOTES). */
export function dedupeKey(event: CallbackEvent): string {
  return [event.id ?? event.trans_id ?? '', event.type ?? event.action ?? '', event.status ?? ''].join(':')
}

/**
 * A stuck 3DS challenge (spec Events 3): the latest callback of a payment carries `transStatus`
 * `C` and nothing came after it. Pass the payment's callbacks in the order they arrived.
 */
export function isStuckChallenge(history: CallbackEvent | readonly CallbackEvent[]): boolean {
  const events: readonly CallbackEvent[] = Array.isArray(history) ? history : [history as CallbackEvent]
  return events.at(-1)?.transStatus === 'C'
}
