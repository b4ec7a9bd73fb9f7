/** Callback verification over the raw body: parse without normalising, sign the received strings, compare in constant time. */

import { type Logger, type Secret, type SignatureErrorReason, SignatureVerificationError } from '@paywire/core'
import { type Followers, nodeCrypto } from '@paywire/core/engine'
import {
  callbackSignatureFailure,
  callSignatureFunction,
  describeRef,
  type PayerCard,
  type PayerLookup,
  type PayerRef,
  readPayer,
  type SignatureOption,
  strrevSignature,
} from '../signing/presets.js'
import { explainSignature, sign } from '../signing/signature.js'
import { parseRawBody } from './body.js'
import type { TransStatusLookup } from './confirm.js'
import { type CallbackEvent, type CallbackOptions, CHECKOUT_CALLBACK_FIELDS } from './event.js'
import { CallbackHandler, type CallbackHandlerOptions } from './handler.js'
import { DEFAULT_CALLBACK_MAX_BYTES } from './limits.js'
import type { SentRefunds } from './sent-refunds.js'

/** The client's callback verification settings: the verify options' defaults and the signature. */
export interface CallbackDefaults extends CallbackOptions {
  readonly signature?: SignatureOption
  readonly payerLookup?: PayerLookup
  /** The signed fields of S2S CARD callbacks on the seed signature (option `s2sCallbackFields`); none by default. */
  readonly s2sFields?: readonly string[]
}

/** The S2S callback fields that carry its state: a hash over fewer authenticates the transaction only. */
const S2S_STATE_FIELDS = ['action', 'result', 'status'] as const

/** Verifies gateway callbacks (callback rule: signature over the raw body) with the client's password. */
export class Callbacks {
  /** The passwords a callback may be signed with, the current one first (option `callbackPasswords`). */
  readonly #passwords: readonly Secret[]
  readonly #defaults: CallbackDefaults
  readonly #logger: Logger | undefined
  readonly #lookup: TransStatusLookup | undefined
  readonly #refunds: SentRefunds | undefined
  readonly #followers: Followers | undefined

  /** @internal */
  constructor(
    passwords: readonly Secret[],
    defaults: CallbackDefaults = {},
    logger?: Logger,
    lookup?: TransStatusLookup,
    refunds?: SentRefunds,
    followers?: Followers,
  ) {
    this.#followers = followers
    this.#passwords = passwords
    this.#defaults = defaults
    this.#logger = logger
    this.#lookup = lookup
    this.#refunds = refunds
  }

  /**
   * The callback inbox over the raw body: verifies, deduplicates on the platform's key across every
   * instance sharing `store`, answers `OK` at once and runs `onEvent` once per key: never twice
   * while the store records it, never acknowledged unless it runs or ran (rules Platform 16, 23).
   * On `card-md5-strrev`, whose S2S callback hash leaves the state unsigned, an S2S callback is first
   * confirmed by `s2s.getTransStatus` and `onEvent` gets the gateway's state, never the claimed one.
   * Adapters: `handler.node` (node:http, Express), `handler.fetch` (Fetch API).
   */
  handler(options: CallbackHandlerOptions): CallbackHandler {
    // The verify options default to this client's inside verify(); the logger hears failures onError does not.
    return new CallbackHandler(this, options, this.#logger, this.#lookup, this.#refunds, this.#followers)
  }

  /**
   * Verifies a callback from its raw body (form-encoded, or JSON) and returns the typed event, or
   * throws `SignatureVerificationError`. Pass the body exactly as received: the signature covers
   * the received strings, so a re-parsed object (numbers, trimmed or re-encoded values) cannot be
   * verified reliably and is refused. In order: the size cap (before any parsing), one linear parse,
   * every signed field present and non-empty, then the hash, compared in constant time. The parse
   * refuses bodies of more than `MAX_CALLBACK_FIELDS` fields or, for JSON, nested deeper than
   * `MAX_CALLBACK_DEPTH`, before decoding anything. On `card-md5-strrev` an S2S callback's hash
   * authenticates only its transaction: the event says so (`authenticated: 'transaction-only'`), and
   * its state must be confirmed by `gw.s2s.getTransStatus` before it is acted on (the handler does).
   */
  verify(rawBody: string | Buffer | Uint8Array, options: CallbackOptions = {}): CallbackEvent {
    const signature = this.#defaults.signature ?? 'seed'
    const maxBodyBytes = options.maxBodyBytes ?? this.#defaults.maxBodyBytes ?? DEFAULT_CALLBACK_MAX_BYTES
    const fields = parseRawBody(rawBody, maxBodyBytes)
    // On the strrev scheme only S2S callbacks (they carry `action`, rule Platform 17) change formula.
    if (typeof signature === 'function' || (signature === 'card-md5-strrev' && fields['action'] !== undefined)) {
      const [event, index] = this.#verifyOther(signature, fields, options, rawBody)
      const noted = this.#noted(index)
      return typeof signature === 'function'
        ? stamped(event, undefined, noted)
        : stamped(event, 'transaction-only', noted)
    }
    // An S2S CARD callback (it carries `action` and no `type`, rule Platform 17) on the seed signature:
    // no public source gives its signed fields (rule Platform 30), so it is verified only with the
    // fields you name (`s2sCallbackFields`, or per call `fields`), never with a guess.
    const s2s = fields['action'] !== undefined && fields['type'] === undefined
    const s2sOrder = options.fields ?? this.#defaults.s2sFields
    if (s2s && s2sOrder === undefined) {
      throw new SignatureVerificationError(
        'missing_signed_fields',
        'S2S CARD callback (it carries action): the platform publishes its signature for signature "card-md5-strrev" only, so on the seed signature it is verified only with the fields your account signs: record one from your sandbox with `paywire callback capture`, which says which known formula verifies it, then set s2sCallbackFields (or pass fields to verify). Refused, never guessed.',
        {
          fieldsUsed: [],
          fieldsReceived: Object.keys(fields),
          digest: options.digest ?? this.#defaults.digest ?? 'md5',
        },
      )
    }
    const order = (s2s ? s2sOrder : undefined) ?? options.fields ?? this.#defaults.fields ?? CHECKOUT_CALLBACK_FIELDS
    const digest = options.digest ?? this.#defaults.digest ?? 'md5'
    const uppercase = options.uppercase ?? this.#defaults.uppercase ?? 'ascii'
    const received = fields['hash']
    const missing = order.filter((name) => fields[name] === undefined)
    const empty = order.filter((name) => fields[name] === '')
    const diagnostic = () => {
      const explanation = explainSignature(
        order.map((name) => ({ name, value: fields[name] })),
        this.#first(),
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
    const values = order.map((name) => fields[name] ?? '')
    const index = this.#matching((password) => sign(values, password, digest, { uppercase }), received)
    if (index === undefined) {
      throw new SignatureVerificationError(
        'hash_mismatch',
        `callback signature does not verify. ${newlineHint(rawBody)}Check the password of this environment, the digest and the callback field order.`,
        diagnostic(),
      )
    }
    // A hash that leaves the S2S state unsigned authenticates the transaction only: the inbox confirms it.
    const partial = s2s && S2S_STATE_FIELDS.some((name) => !order.includes(name))
    return stamped(fields as CallbackEvent, partial ? 'transaction-only' : undefined, this.#noted(index))
  }

  /** The current password: the one a refusal's steps are explained with. */
  #first(): Secret {
    return this.#passwords[0] as Secret
  }

  /**
   * The index of the password whose hash is `received`, or `undefined`. Every password is hashed
   * and compared in constant time, whichever matches, so the timing says nothing of which one did.
   */
  #matching(expectedFor: (password: Secret) => string, received: string): number | undefined {
    let found: number | undefined
    this.#passwords.forEach((password, i) => {
      if (constantTimeEqual(expectedFor(password), received) && found === undefined) found = i
    })
    return found
  }

  /**
   * A non-first password verified the callback: said on the event (so merchants see when old ones
   * stop being used) and in a debug line naming the option's index, never the password.
   */
  #noted(index: number): number | undefined {
    if (index === 0) return undefined
    this.#logger?.debug(
      `paywire: callback verified with callbackPasswords[${index}], not the first password: the gateway still signs with an older one`,
      { passwordIndex: index },
    )
    return index
  }

  /**
   * Verifies with a signer function, or an S2S callback on the strrev scheme: the hash over the
   * callback's trans_id and the payer data of its payment (from `options.payer` or `payerLookup`),
   * which the callback itself does not carry. An unknown payer refuses the callback, never passes it.
   */
  #verifyOther(
    signature: SignatureOption,
    fields: Readonly<Record<string, string>>,
    options: CallbackOptions,
    rawBody: string | Buffer | Uint8Array,
  ): [CallbackEvent, number] {
    const received = fields['hash']
    const scheme = typeof signature === 'function' ? 'signer function' : signature
    if (received === undefined || received === '') {
      throw new SignatureVerificationError('missing_hash', 'callback has no "hash" field; it cannot be verified.', {
        signature: scheme,
        fieldsReceived: Object.keys(fields),
      })
    }
    let expectedFor: (password: Secret) => string
    if (typeof signature === 'function') {
      const { hash: _hash, ...signed } = fields
      // The function is called once per password: it signs with the one it is given.
      expectedFor = (password) =>
        callSignatureFunction(signature, 'callback', signed, password.reveal(), callbackSignatureFailure)
    } else {
      const transId = fields['trans_id']
      if (transId === undefined || transId === '') {
        throw new SignatureVerificationError(
          'missing_signed_fields',
          'S2S callback lacks trans_id, which the card-md5-strrev signature covers; it is refused without checking the hash.',
          { signature: scheme, fieldsReceived: Object.keys(fields) },
        )
      }
      const orderId = fields['order_id']
      const ref: PayerRef = { operation: 'callback', transId, ...(orderId ? { orderId } : {}) }
      const payer = this.#payerOf(ref, options)
      const uppercase = options.uppercase ?? this.#defaults.uppercase ?? 'ascii'
      expectedFor = (password) => strrevSignature('transaction', { payer, transId }, password, uppercase).hash
    }
    const index = this.#matching(expectedFor, received.toLowerCase())
    if (index === undefined) {
      throw new SignatureVerificationError(
        'hash_mismatch',
        `callback signature does not verify (${scheme}). ${newlineHint(rawBody)}Check the password of this environment${typeof signature === 'function' ? ' and your signer function' : ' and the payer data of this payment'}.`,
        { signature: scheme, fieldsReceived: Object.keys(fields) },
      )
    }
    return [fields as CallbackEvent, index]
  }

  /** The payer data of an S2S callback's payment: given to `verify`, or found by `payerLookup`. */
  #payerOf(ref: PayerRef, options: CallbackOptions): PayerCard {
    const refuse = (reason: SignatureErrorReason, message: string): never => {
      throw new SignatureVerificationError(reason, `${message}; the callback is refused.`, {
        signature: 'card-md5-strrev',
      })
    }
    let payer: unknown = options.payer
    if (payer === undefined) {
      const lookup = this.#defaults.payerLookup
      if (!lookup)
        return refuse(
          'no_payer_lookup',
          'signature "card-md5-strrev" needs payerLookup (or verify options.payer) to verify S2S callbacks',
        )
      try {
        payer = lookup(ref)
      } catch (error) {
        return refuse(
          'unknown_payer',
          `payerLookup threw (${error instanceof Error ? error.name : typeof error}) for ${describeRef(ref)}`,
        )
      }
      if (payer === undefined) return refuse('unknown_payer', `payerLookup knows no payer for ${describeRef(ref)}`)
    }
    const read = readPayer(payer)
    return 'problem' in read
      ? refuse('unknown_payer', `the payer data for ${describeRef(ref)} is unusable: ${read.problem}`)
      : read.payer
  }
}

/**
 * A hint when a form body ends with a newline: the gateway never sends one, so it was added on the
 * way (a saved file, echo, a proxy) and changed the last field. Empty otherwise, and for a JSON body,
 * where a trailing newline is whitespace after the value that changes no field (the body is parsed
 * as JSON when its first non-whitespace character is `{`). No value of the body in it.
 */
function newlineHint(rawBody: string | Buffer | Uint8Array): string {
  // Read only on a refusal: decoding the body once more costs nothing on the path that verifies.
  const text =
    typeof rawBody === 'string'
      ? rawBody
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8')
  return text.endsWith('\n') && !text.trimStart().startsWith('{')
    ? 'The body ends with a newline, which the gateway never sends: it was added on the way (a saved file, echo, a proxy) and changes the last field; pass the body exactly as received. '
    : ''
}

/**
 * The event with its verification marks set by us alone: a body's own `authenticated`,
 * `confirmedBy` or `passwordIndex` field is dropped, so a sender cannot claim a confirmation it never had.
 */
/** Marks verification, the inbox and the fold set on an event: a body's own field of the name is dropped, never believed. */
const SET_BY_THE_SDK = ['authenticated', 'confirmedBy', 'passwordIndex', 'refundDoubt'] as const

function stamped(event: CallbackEvent, authenticated?: 'transaction-only', passwordIndex?: number): CallbackEvent {
  const claimed = SET_BY_THE_SDK.some((name) => Object.hasOwn(event, name))
  if (!claimed && authenticated === undefined && passwordIndex === undefined) return event
  // Same prototype as the parsed body (a field named like an Object method stays a plain field).
  const fields = Object.assign(Object.create(Object.getPrototypeOf(event)), event) as Record<string, unknown>
  for (const name of SET_BY_THE_SDK) delete fields[name]
  if (authenticated !== undefined) fields['authenticated'] = authenticated
  if (passwordIndex !== undefined) fields['passwordIndex'] = String(passwordIndex)
  return fields as unknown as CallbackEvent
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
