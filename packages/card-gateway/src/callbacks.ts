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

/**
 * The deepest a JSON callback may nest, its own braces being level 1: deeper bodies are refused
 * (`too_deep`, answered 400 by the inbox) before they are parsed. A genuine callback nests two or
 * three levels; thousands of levels would exhaust the stack of any recursive reader.
 */
export const MAX_CALLBACK_DEPTH = 16

/**
 * The most fields a callback may carry, form pairs or JSON values inside the body (object members
 * and array elements, at any depth): more are refused (`too_many_fields`, answered 400 by the
 * inbox) before any is decoded. A genuine callback has a few dozen; a body of thousands of tiny
 * fields is an attack on the parser.
 */
export const MAX_CALLBACK_FIELDS = 256

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
   * every signed field present and non-empty, then the hash, compared in constant time. The parse
   * refuses bodies of more than `MAX_CALLBACK_FIELDS` fields or, for JSON, nested deeper than
   * `MAX_CALLBACK_DEPTH`, before decoding anything.
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
 * `maxBodyBytes` (before decoding anything), hostile shapes (too many fields, JSON nested too
 * deep: before decoding anything either) and duplicate fields. Linear in the body's size.
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
  const trimmed = text.trimStart()
  return trimmed.startsWith('{') ? parseJsonFields(text, text.length - trimmed.length) : parseFormFields(text)
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

function tooManyFields(): SignatureVerificationError {
  return new SignatureVerificationError(
    'too_many_fields',
    `callback body carries more than ${MAX_CALLBACK_FIELDS} fields (form pairs, or JSON members and array elements at any depth); it is refused before any field is decoded. A genuine callback has a few dozen.`,
    { limitFields: MAX_CALLBACK_FIELDS },
  )
}

function tooDeep(): SignatureVerificationError {
  return new SignatureVerificationError(
    'too_deep',
    `callback JSON body nests deeper than ${MAX_CALLBACK_DEPTH} levels; it is refused before it is parsed. A genuine callback nests two or three.`,
    { limitDepth: MAX_CALLBACK_DEPTH },
  )
}

/**
 * Form callbacks: the pairs are counted first (one `indexOf` pass; empty pairs, which
 * `URLSearchParams` skips, do not count), so a body of thousands of tiny pairs is refused before any
 * is decoded.
 */
function parseFormFields(text: string): Record<string, string> {
  let fields = 0
  // URLSearchParams drops one leading "?": a lone "?" before the first "&" is no pair either.
  for (let i = text.charCodeAt(0) === QUESTION ? 1 : 0; i <= text.length; ) {
    let next = text.indexOf('&', i)
    if (next === -1) next = text.length
    if (next > i && ++fields > MAX_CALLBACK_FIELDS) throw tooManyFields()
    i = next + 1
  }
  const out: Record<string, string> = Object.create(null)
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in out) throw duplicate(name)
    out[name] = value
  }
  return { ...out }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const DIGIT_0 = 0x30
const DIGIT_1 = 0x31
const DIGIT_9 = 0x39
const COMMA = 0x2c
const COLON = 0x3a
const QUESTION = 0x3f
const LOWER_E = 0x65
const UPPER_E = 0x45
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** A backslash, or a character JSON forbids unescaped inside a string: the text needs decoding or is refused. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const ESCAPE_OR_CONTROL = /[\u0000-\u001f\\]/
/** Up to this length a loop in JavaScript beats a call into the regular expression engine. */
const SHORT_STRING = 32

function hasEscapeOrControl(raw: string): boolean {
  for (let j = 0; j < raw.length; j++) {
    const c = raw.charCodeAt(j)
    if (c < 0x20 || c === BACKSLASH) return true
  }
  return false
}

function unreadable(): SignatureVerificationError {
  return new SignatureVerificationError('unreadable_body', 'callback body starts like JSON but is not valid JSON.', {})
}

/**
 * JSON callbacks, read in one pass that is also the validity check (the grammar `JSON.parse`
 * accepts, nothing more): each top-level member's value as `JSON.parse` would give it: strings as
 * they are, numbers as written (`10.00` stays `10.00`, which `JSON.parse` alone would turn into
 * `10`), booleans, null and nested values as JSON text. Nested members never stand in for top-level
 * ones. The pass refuses a body nested deeper than `MAX_CALLBACK_DEPTH` or with more than
 * `MAX_CALLBACK_FIELDS` members and elements the moment it reaches either, so a hostile body is never built into
 * objects; and it never recurses, so no depth can exhaust the stack. String contents are found with
 * native searches (`indexOf`, one character-class test) and kept as slices of the body, so a long
 * value costs no copy.
 */
function parseJsonFields(text: string, start: number): Record<string, string> {
  // Only JSON's own whitespace may come before the brace (trimStart also passed a BOM or a NBSP).
  if (skipSpace(text, 0) !== start) throw unreadable()
  const length = text.length
  const out: [string, string][] = []
  const seen = new Set<string>()
  /** Open containers, innermost last: true for an object. */
  const open: boolean[] = []
  let fields = 0
  let memberKey = ''
  let memberStart = -1
  let duplicateKey: string | undefined
  let i = start
  value: for (;;) {
    // At the start of a value.
    i = skipSpace(text, i)
    const c = text.charCodeAt(i)
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (open.length === MAX_CALLBACK_DEPTH) throw tooDeep()
      const object = c === OPEN_BRACE
      open.push(object)
      i = skipSpace(text, i + 1)
      if (text.charCodeAt(i) !== (object ? CLOSE_BRACE : CLOSE_BRACKET)) {
        i = object ? readKey() : element(i)
        continue
      }
      open.pop()
      i++
    } else if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (open.length === 1) {
        out.push([memberKey, stringValue(i, end)])
        memberStart = -1
      } else stringValue(i, end) // validated only
      i = end
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      i = numberEnd(text, i)
    } else if (text.startsWith('true', i)) i += 4
    else if (text.startsWith('false', i)) i += 5
    else if (text.startsWith('null', i)) i += 4
    else throw unreadable()
    // After a value: close containers, or move to the next member or element.
    for (;;) {
      if (open.length === 1 && memberStart >= 0) {
        // The value of a top-level member just ended: numbers keep their source, the rest is JSON text.
        const source = text.slice(memberStart, i)
        const first = source.charCodeAt(0)
        const isNumber = first === MINUS || (first >= DIGIT_0 && first <= DIGIT_9)
        out.push([memberKey, isNumber ? source : JSON.stringify(JSON.parse(source))])
        memberStart = -1
      }
      if (open.length === 0) break value
      i = skipSpace(text, i)
      const next = text.charCodeAt(i)
      const object = open[open.length - 1] as boolean
      if (next === COMMA) {
        i = object ? readKey(i + 1) : element(i + 1)
        continue value
      }
      if (next !== (object ? CLOSE_BRACE : CLOSE_BRACKET)) throw unreadable()
      open.pop()
      i++
    }
  }
  if (skipSpace(text, i) !== length) throw unreadable()
  if (duplicateKey !== undefined) throw duplicate(duplicateKey)
  return Object.fromEntries(out)

  /** Counts an array element as a field (each is a value to build, like a member); returns `from`. */
  function element(from: number): number {
    if (++fields > MAX_CALLBACK_FIELDS) throw tooManyFields()
    return from
  }

  /** Reads `"key":` from `from` (whitespace allowed around it); returns the index after the colon. */
  function readKey(from = i): number {
    const keyStart = skipSpace(text, from)
    if (text.charCodeAt(keyStart) !== QUOTE) throw unreadable()
    if (++fields > MAX_CALLBACK_FIELDS) throw tooManyFields()
    const keyEnd = stringEnd(text, keyStart)
    const key = stringValue(keyStart, keyEnd)
    const colon = skipSpace(text, keyEnd)
    if (text.charCodeAt(colon) !== COLON) throw unreadable()
    if (open.length === 1) {
      // "\u0069d" is "id": the decoded key is what a duplicate is judged by. Refused once the
      // whole body is known to be JSON, so a body is unreadable or ambiguous whatever the order.
      if (seen.has(key)) duplicateKey ??= key
      seen.add(key)
      memberKey = key
    }
    // Past the whitespace after the colon, once: the value starts here.
    const valueStart = skipSpace(text, colon + 1)
    if (open.length === 1) memberStart = valueStart
    return valueStart
  }

  /** The decoded string between `from` (its opening quote) and `end` (past its closing one). */
  function stringValue(from: number, end: number): string {
    if (end < 0) throw unreadable()
    const raw = text.slice(from + 1, end - 1)
    if (!(raw.length > SHORT_STRING ? ESCAPE_OR_CONTROL.test(raw) : hasEscapeOrControl(raw))) return raw
    try {
      // Decodes the escapes, and refuses a bad one or a control character.
      return JSON.parse(`"${raw}"`) as string
    } catch {
      throw unreadable()
    }
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

function skipSpace(text: string, i: number): number {
  let j = i
  while (isSpace(text.charCodeAt(j))) j++
  return j
}

/**
 * Index just past the string literal that starts at `i`, or -1 when it never closes. A quote ends
 * it when an even number of backslashes precedes it; each backslash run is counted once, for the
 * quote right after it, so the work stays linear.
 */
function stringEnd(text: string, i: number): number {
  let from = i + 1
  for (;;) {
    const quote = text.indexOf('"', from)
    if (quote === -1) return -1
    let b = quote - 1
    while (b > i && text.charCodeAt(b) === BACKSLASH) b--
    if ((quote - 1 - b) % 2 === 0) return quote + 1
    from = quote + 1
  }
}

/** Index just past the JSON number at `i` (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`). */
function numberEnd(text: string, i: number): number {
  let j = i
  if (text.charCodeAt(j) === MINUS) j++
  const first = text.charCodeAt(j)
  if (first === DIGIT_0) j++
  else if (first >= DIGIT_1 && first <= DIGIT_9) j = digitsEnd(text, j)
  else throw unreadable()
  if (text.charCodeAt(j) === DOT) {
    const fraction = digitsEnd(text, j + 1)
    if (fraction === j + 1) throw unreadable()
    j = fraction
  }
  const e = text.charCodeAt(j)
  if (e === LOWER_E || e === UPPER_E) {
    let k = j + 1
    const sign = text.charCodeAt(k)
    if (sign === PLUS || sign === MINUS) k++
    const exponent = digitsEnd(text, k)
    if (exponent === k) throw unreadable()
    j = exponent
  }
  return j
}

function digitsEnd(text: string, i: number): number {
  let j = i
  for (let c = text.charCodeAt(j); c >= DIGIT_0 && c <= DIGIT_9; c = text.charCodeAt(++j));
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
