/** Callback verification over the raw body: parse without normalising, sign the received strings, compare in constant time. */

import { type Logger, nodeCrypto, type Secret, SignatureVerificationError } from '@paywire/core'
import { CallbackHandler, type CallbackHandlerOptions } from './callback-handler.js'
import { type DigestName, explainSignature, sign, type UppercaseMode } from './signature.js'

/** Checkout callback hash input order (platform rule); the password is appended last. */
export const CHECKOUT_CALLBACK_FIELDS: readonly string[] = Object.freeze([
  'id',
  'order_number',
  'order_amount',
  'order_currency',
  'order_description',
])

/** Callback `type` values (rule Platform 14); unknown values still parse. */
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

/** Callback `status` values (rule Platform 14); unknown values still parse. */
export type CallbackStatus = 'success' | 'fail' | 'waiting' | 'undefined' | (string & {})

/**
 * A verified callback: every received field as its exact string, the known ones typed
 * (rules Platform 14, Events 3: `transStatus`, `eci`, `protocolVersion` after 3DS).
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
  /**
   * The card's token, when the purchase asked `req_token: true` (rule Platform 26). Not covered by
   * the callback hash (rule Platform 15): store the one the status answer gives for refunds.
   */
  readonly card_token?: string
  /** The token of an initial recurring payment (`recurring_init: true`), for `s2s.recurringSale`. */
  readonly recurring_token?: string
  /** 3DS transaction status; `C` (challenge) with no later callback means a stuck challenge. */
  readonly transStatus?: string
  readonly eci?: string
  readonly protocolVersion?: string
  /** S2S CARD callbacks carry these (rule Platform 17). */
  readonly action?: string
  readonly result?: string
  readonly order_id?: string
  readonly trans_id?: string
  readonly hash: string
  readonly [field: string]: string | undefined
}

export interface CallbackOptions {
  /** Hash input field order; default `CHECKOUT_CALLBACK_FIELDS` (the platform's callback order). */
  readonly fields?: readonly string[]
  readonly digest?: DigestName
  /** Uppercasing of the callback hash input; default `ascii` (the platform signs callbacks with PHP `strtoupper`). */
  readonly uppercase?: UppercaseMode
  /**
   * Largest body verified, in bytes, checked before any parsing; default 65 536 (64 KiB). A
   * callback is a few hundred bytes: anything near the cap is an attack or a misrouted request.
   */
  readonly maxBodyBytes?: number
}

/** The default cap on a callback body, in bytes (64 KiB). */
export const DEFAULT_CALLBACK_MAX_BYTES = 64 * 1024

/** Verifies gateway callbacks (callback rule: signature over the raw body) with the client's password. */
export class Callbacks {
  readonly #password: Secret
  readonly #defaults: CallbackOptions
  readonly #logger: Logger | undefined

  /** @internal */
  constructor(password: Secret, defaults: CallbackOptions = {}, logger?: Logger) {
    this.#password = password
    this.#defaults = defaults
    this.#logger = logger
  }

  /**
   * The callback inbox over the raw body: verifies, deduplicates on the platform's key across every
   * instance sharing `store`, answers `OK` at once and runs `onEvent` once per key: never twice
   * while the store records it, never acknowledged unless it runs or ran (rules Platform 16, 23). Adapters: `handler.node` (node:http, Express), `handler.fetch` (Fetch API).
   */
  handler(options: CallbackHandlerOptions): CallbackHandler {
    // The verify options default to this client's inside verify(); the logger hears failures onError does not.
    return new CallbackHandler(this, options, this.#logger)
  }

  /**
   * Verifies a callback from its raw body (form-encoded, or JSON) and returns the typed event, or
   * throws `SignatureVerificationError`. Pass the body exactly as received: the signature covers
   * the received strings, so a re-parsed object (numbers, trimmed or re-encoded values) cannot be
   * verified reliably and is refused. In order: the size cap (before any parsing), one linear parse,
   * every signed field present and non-empty, then the hash, compared in constant time.
   */
  verify(rawBody: string | Buffer | Uint8Array, options: CallbackOptions = {}): CallbackEvent {
    const order = options.fields ?? this.#defaults.fields ?? CHECKOUT_CALLBACK_FIELDS
    const digest = options.digest ?? this.#defaults.digest ?? 'md5'
    const uppercase = options.uppercase ?? this.#defaults.uppercase ?? 'ascii'
    const maxBodyBytes = options.maxBodyBytes ?? this.#defaults.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES
    const fields = parseRawBody(rawBody, maxBodyBytes)
    const received = fields['hash']
    const missing = order.filter((name) => fields[name] === undefined)
    const empty = order.filter((name) => fields[name] === '')
    const diagnostic = () => {
      const explanation = explainSignature(
        order.map((name) => ({ name, value: fields[name] })),
        this.#password,
        digest,
        { uppercase },
      )
      return {
        fieldsUsed: [...order],
        fieldsPresent: order.filter((name) => fields[name] !== undefined),
        fieldsMissing: missing,
        fieldsEmpty: empty,
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
    // An absent or empty signed field adds nothing to the concatenation, so a body with none of
    // them hashes to sha1(md5(UPPER(password))), a constant: refused before any hash is computed.
    if (missing.length > 0 || empty.length > 0) {
      const parts = [
        missing.length > 0 ? `absent: ${missing.join(', ')}` : '',
        empty.length > 0 ? `empty: ${empty.join(', ')}` : '',
      ].filter(Boolean)
      throw new SignatureVerificationError(
        'missing_signed_fields',
        `callback lacks signed fields (${parts.join('; ')}); every field of the signature (${order.join(', ')}) must be present and non-empty, so it is refused without checking the hash. If your account signs other fields, set callbackFields.`,
        diagnostic(),
      )
    }
    const expected = sign(
      order.map((name) => fields[name] ?? ''),
      this.#password,
      digest,
      { uppercase },
    )
    if (!constantTimeEqual(expected, received)) {
      throw new SignatureVerificationError(
        'hash_mismatch',
        'callback signature does not verify. Check the password of this environment, the digest and the callback field order.',
        diagnostic(),
      )
    }
    return fields as CallbackEvent
  }
}

/** Length-safe constant-time comparison: equal-length buffers only reach `timingSafeEqual`. */
function constantTimeEqual(expected: string, received: string): boolean {
  const a = Buffer.from(expected, 'utf8')
  const b = Buffer.from(received, 'utf8')
  if (a.length !== b.length) {
    nodeCrypto().timingSafeEqual(a, a) // same work either way
    return false
  }
  return nodeCrypto().timingSafeEqual(a, b)
}

const RAW_BODY_HINT =
  'callbacks.verify needs the raw request body (string, Buffer or Uint8Array) exactly as received: the signature covers the received strings, and a parsed object has lost them. In Express use express.raw({ type: "*/*" }) for the callback route; in Fastify add a content-type parser that keeps the body as a string or Buffer.'

/**
 * Parses a form (or JSON) body into exact strings; refuses parsed objects, bodies over
 * `maxBodyBytes` (before decoding anything) and duplicate fields. Linear in the body's size.
 */
export function parseRawBody(rawBody: unknown, maxBodyBytes = DEFAULT_CALLBACK_MAX_BYTES): Record<string, string> {
  let text: string
  if (typeof rawBody === 'string') {
    checkSize(Buffer.byteLength(rawBody, 'utf8'), maxBodyBytes)
    text = rawBody
  } else if (rawBody instanceof Uint8Array) {
    checkSize(rawBody.byteLength, maxBodyBytes)
    text = Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8')
  } else if (rawBody === undefined || isEmptyObject(rawBody)) {
    // What body parsers leave when a request had no body: `{}` (Express 4) or nothing at all (Express 5).
    throw new SignatureVerificationError(
      'empty_body',
      'callbacks.verify got no body: the request had none (a gateway callback always carries its signed fields), or nothing read it. For the second case, in Express mount express.raw({ type: "*/*" }) on the callback route.',
      { receivedType: describeType(rawBody) },
    )
  } else throw new SignatureVerificationError('not_raw_body', RAW_BODY_HINT, { receivedType: describeType(rawBody) })
  if (text.trim() === '') {
    throw new SignatureVerificationError(
      'empty_body',
      'callback body is empty: a gateway callback always carries its signed fields, so this request is not one (or its body was consumed before verification).',
      {},
    )
  }
  return text.trimStart().startsWith('{') ? parseJsonFields(text) : parseFormFields(text)
}

function checkSize(bytes: number, limit: number): void {
  if (bytes <= limit) return
  throw new SignatureVerificationError(
    'body_too_large',
    `callback body is ${bytes} bytes, over the ${limit}-byte limit (option maxBodyBytes); it is refused before parsing. A genuine callback is a few hundred bytes.`,
    { bytes, limitBytes: limit },
  )
}

/** A plain `{}` (what body parsers leave for a request without a body), not a URLSearchParams or a class instance. */
export function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return (prototype === Object.prototype || prototype === null) && Reflect.ownKeys(value).length === 0
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
 * JSON callbacks: each top-level member's value read from its own source text, as `JSON.parse`
 * sees it: strings as they are, numbers as written (`10.00` stays `10.00`, which `JSON.parse` alone
 * would turn into `10`), booleans, null and nested values as JSON text. Nested members never stand
 * in for top-level ones.
 */
function parseJsonFields(text: string): Record<string, string> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text) // the validity gate: the scanner below may assume well-formed JSON
  } catch {
    throw new SignatureVerificationError('unreadable_body', 'callback body starts like JSON but is not valid JSON.', {})
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SignatureVerificationError('unreadable_body', 'callback JSON body is not an object.', {})
  }
  const out: Record<string, string> = Object.create(null)
  for (const { key, source } of topLevelMembers(text)) {
    if (key in out) throw duplicate(key)
    const first = source.charCodeAt(0)
    if (first === QUOTE) out[key] = JSON.parse(source) as string
    else if (first === MINUS || (first >= DIGIT_0 && first <= DIGIT_9)) out[key] = source
    else out[key] = JSON.stringify(JSON.parse(source))
  }
  return { ...out }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const MINUS = 0x2d
const DIGIT_0 = 0x30
const DIGIT_9 = 0x39
const COMMA = 0x2c
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/** One pass over a well-formed JSON object text: each top-level key (decoded) and its value's source. */
function topLevelMembers(text: string): { key: string; source: string }[] {
  const members: { key: string; source: string }[] = []
  let i = skipSpace(text, text.indexOf('{') + 1)
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i)
    const raw = text.slice(i + 1, keyEnd - 1)
    // Only an escaped key needs decoding ("\u0069d" is "id": a duplicate in disguise).
    const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1) // past the colon
    const valueEnd = skipValue(text, valueStart)
    members.push({ key, source: text.slice(valueStart, valueEnd) })
    i = skipSpace(text, valueEnd)
    if (text[i] === ',') i = skipSpace(text, i + 1)
  }
  return members
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

function skipSpace(text: string, i: number): number {
  let j = i
  while (isSpace(text.charCodeAt(j))) j++
  return j
}

/** Index just past the string literal that starts at `i`. */
function stringEnd(text: string, i: number): number {
  let j = i + 1
  for (;;) {
    const c = text.charCodeAt(j)
    if (c === BACKSLASH) j += 2
    else if (c === QUOTE) return j + 1
    else j++
  }
}

/** Index just past the JSON value that starts at `i` (strings skipped, nesting counted). */
function skipValue(text: string, i: number): number {
  const first = text[i]
  if (first === '"') return stringEnd(text, i)
  if (first !== '{' && first !== '[') {
    // A number, true, false or null: it ends at a separator or at whitespace.
    let j = i
    for (
      let c = text.charCodeAt(j);
      j < text.length && c !== COMMA && c !== CLOSE_BRACE && c !== CLOSE_BRACKET && !isSpace(c);
    ) {
      c = text.charCodeAt(++j)
    }
    return j
  }
  let depth = 0
  let j = i
  do {
    const c = text[j]
    if (c === '"') {
      j = stringEnd(text, j)
      continue
    }
    if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') depth--
    j++
  } while (depth > 0)
  return j
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
 * (rule Platform 16: a `3ds` callback with `success` is not final).
 */
export function isFinal(event: CallbackEvent): boolean {
  if (event.type === undefined || event.status === undefined || event.order_status === undefined) return false
  const expected = FINAL_ORDER_STATUS[event.status]?.[event.type]
  return expected !== undefined && expected === event.order_status
}

/**
 * Deliveries can repeat: deduplicate on `id + type + status` (S2S: `trans_id + action + status`,
 * rule Platform 16), encoded as a JSON array so no two different events share a key.
 */
export function dedupeKey(event: CallbackEvent): string {
  return JSON.stringify([event.id ?? event.trans_id ?? '', event.type ?? event.action ?? '', event.status ?? ''])
}

/**
 * A stuck 3DS challenge (rule Events 3): the latest callback of a payment carries `transStatus`
 * `C` and nothing came after it. Pass the payment's callbacks in the order they arrived.
 */
export function isStuckChallenge(history: CallbackEvent | readonly CallbackEvent[]): boolean {
  const events: readonly CallbackEvent[] = Array.isArray(history) ? history : [history as CallbackEvent]
  return events.at(-1)?.transStatus === 'C'
}
