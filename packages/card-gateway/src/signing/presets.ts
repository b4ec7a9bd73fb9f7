/**
 * Signature presets: the brand variants of the white-label platform's signature, and a signer
 * function for brands no preset covers. `seed` (the default) is `sha1(inner(UPPER(inputs + password)))`
 * on every operation; `card-md5-strrev` is the platform's own S2S CARD scheme (plain MD5 over the
 * reversed payer email, the password, the transaction id and the reversed card digits).
 */

import { RequestValidationError, type Secret, SignatureVerificationError } from '@paywire/core'
import { nodeCrypto } from '@paywire/core/engine'
import { wireField } from '../wire.js'
import { asciiUpper, seedValues, type UppercaseMode } from './signature.js'

/** The named signature presets, in the order the docs list them. */
export const SIGNATURE_PRESETS = Object.freeze(['seed', 'card-md5-strrev'] as const)

/**
 * A named signature preset. `seed` (default): `sha1(md5(UPPER(inputs… + password)))` on every
 * operation and callback (`digest: 'sha256'` switches the inner digest). `card-md5-strrev`: S2S CARD
 * actions and S2S callbacks signed `md5(UPPER(strrev(email) + password + trans_id + strrev(card)))`
 * and its siblings; Checkout operations and Checkout callbacks keep the `seed` formula.
 */
export type SignaturePreset = (typeof SIGNATURE_PRESETS)[number]

/**
 * The payer data the `card-md5-strrev` scheme hashes but never sends: the payer's email and the
 * card's first 6 and last 4 digits (or, for a tokenised card, its token instead of the digits),
 * as sent in the original payment.
 */
export interface PayerCard {
  readonly email: string
  /** The card number's first six digits; with `cardLast4`, unless `cardToken` is given. */
  readonly cardFirst6?: string
  /** The card number's last four digits. */
  readonly cardLast4?: string
  /** The card token that replaces the digits when the payment was made with a token. */
  readonly cardToken?: string
}

/** Which payment a `PayerLookup` is asked about: the S2S transaction and/or order it concerns. */
export interface PayerRef {
  /** The operation being signed (`s2s.capture`, …) or `callback` for a callback being verified. */
  readonly operation: string
  /** The transaction (`trans_id`; `recurring_first_trans_id` for RECURRING_SALE). */
  readonly transId?: string
  /** The order (`order_id`). */
  readonly orderId?: string
}

/**
 * Returns the payer data of the payment `ref` names, as it was sent in the original payment, or
 * `undefined` when the payment is unknown (the request is then not sent, the callback refused).
 * Synchronous: the signature is computed while the request is built, so keep the data of open
 * payments at hand (or load it before the call into what the lookup reads).
 */
export type PayerLookup = (ref: PayerRef) => PayerCard | undefined

/** What a `SignatureFunction` is given for one request or callback. */
export interface SignatureFunctionInput {
  /** `checkout.purchase`, `s2s.capture`, … (the `hashInputs` names), or `callback`. */
  readonly operation: string
  /** The S2S `action` sent (or received in a callback); `undefined` for Checkout. */
  readonly action: string | undefined
  /** The wire fields as sent (a Checkout purchase nests `order`), or the callback's fields as received. */
  readonly fields: Readonly<Record<string, unknown>>
  /** One wire field's exact string; `order.number` reads a nested field. */
  field(name: string): string | undefined
  /** The merchant password (never sent): the hash's secret. */
  readonly password: string
}

/**
 * A signer for a brand no preset covers: from the wire fields and the password to the hash, as
 * lowercase or uppercase hex of even length. It signs every request and verifies every callback.
 */
export type SignatureFunction = (input: SignatureFunctionInput) => string

/** The client option `signature`: a preset name, or your own signer function. */
export type SignatureOption = SignaturePreset | SignatureFunction

const HEX = /^[0-9a-f]+$/i

/**
 * Calls a caller's signer function and checks its answer: a throw or anything but non-empty
 * even-length hex is refused with an error that never includes the password or the value.
 */
export function callSignatureFunction(
  fn: SignatureFunction,
  operation: string,
  fields: Readonly<Record<string, unknown>>,
  password: string,
  onFailure: (message: string) => never,
): string {
  const action = typeof fields['action'] === 'string' ? fields['action'] : undefined
  let hash: unknown
  try {
    hash = fn({
      operation,
      action,
      // A copy, frozen to the leaves: the function cannot change what is sent after it signed it.
      fields: deepFrozenCopy(fields),
      field: (name) => wireField(fields, name),
      password,
    })
  } catch (error) {
    const kind = error instanceof Error ? error.name : typeof error
    return onFailure(`the signature function threw (${kind}) for ${operation}`)
  }
  if (typeof hash !== 'string' || hash.length === 0 || hash.length % 2 !== 0 || !HEX.test(hash)) {
    return onFailure(
      `the signature function must return the hash as hex text of even length (e.g. 32 characters for md5); for ${operation} it returned ${typeof hash === 'string' ? `a string of ${hash.length} characters that is not` : typeof hash}`,
    )
  }
  return hash.toLowerCase()
}

function deepFrozenCopy<T>(value: T): T {
  const copy = structuredClone(value)
  const freeze = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return
    Object.freeze(node)
    for (const child of Object.values(node)) freeze(child)
  }
  freeze(copy)
  return copy
}

/** A request-side failure of the signer function: an error naming `signature`, nothing sent. */
export function requestSignatureFailure(operation: string): (message: string) => never {
  return (message) => {
    throw new RequestValidationError(operation, [{ path: 'signature', message: `${message}; nothing was sent` }])
  }
}

/** A callback-side failure of the signer function: the callback is refused, never passed. */
export function callbackSignatureFailure(message: string): never {
  throw new SignatureVerificationError('signer_failed', `${message}; the callback is refused`, {})
}

// ── the card-md5-strrev scheme ─────────────────────────────────────────────────────────────────

/**
 * PHP `strrev`, by characters: the string reversed by Unicode code points (a surrogate pair stays
 * whole). PHP reverses bytes, so for a non-ASCII email a PHP gateway hashes broken UTF-8; we reverse
 * code points and hash the UTF-8 of the result.
 */
export function strrev(text: string): string {
  return Array.from(text).reverse().join('')
}

/** The four formulas of the strrev scheme (the operation families it signs). */
export type StrrevFormula = 'payment' | 'transaction' | 'schedule-create' | 'schedule'

/** Each step of a strrev signature, the password masked. */
export interface StrrevExplanation {
  readonly formula: StrrevFormula
  /** The formula in words, e.g. `md5(UPPER(strrev(email) + PASSWORD + trans_id + strrev(first6 + last4)))`. */
  readonly rule: string
  /** The text before uppercasing, with the password shown as `{password}`. */
  readonly concatenation: string
  /** The uppercased text, with the password shown as `{PASSWORD}`. */
  readonly uppercased: string
  /** The md5, as sent in `hash`. */
  readonly hash: string
}

/** The S2S action → strrev formula; GET_TRANS_STATUS_BY_ORDER has none published. */
const STRREV_BY_ACTION: Readonly<Record<string, StrrevFormula>> = {
  GET_TRANS_STATUS: 'transaction',
  CAPTURE: 'transaction',
  VOID: 'transaction',
  CREDITVOID: 'transaction',
  RECURRING_SALE: 'payment',
  CREATE_SCHEDULE: 'schedule-create',
  DELETE_SCHEDULE: 'schedule',
  UPDATE_SCHEDULE: 'schedule',
}

/** The strrev formula of an S2S action, or `undefined` when the scheme publishes none for it. */
export function strrevFormulaOf(action: string): StrrevFormula | undefined {
  return STRREV_BY_ACTION[action]
}

const RULES: Readonly<Record<StrrevFormula, string>> = {
  payment: 'md5(UPPER(strrev(email) + PASSWORD + strrev(first6 + last4 | card_token)))',
  transaction: 'md5(UPPER(strrev(email) + PASSWORD + trans_id + strrev(first6 + last4 | card_token)))',
  'schedule-create': 'md5(UPPER(strrev(PASSWORD)))',
  schedule: 'md5(UPPER(strrev(schedule_id + PASSWORD)))',
}

/** The values a strrev formula hashes besides the password. */
export interface StrrevParts {
  readonly payer?: PayerCard
  readonly transId?: string
  readonly scheduleId?: string
}

function upper(text: string, mode: UppercaseMode): string {
  return mode === 'unicode' ? text.toUpperCase() : asciiUpper(text)
}

/** The card part of the scheme: first 6 + last 4 digits, or the token that replaces them. */
function cardText(payer: PayerCard): string {
  return payer.cardToken !== undefined ? payer.cardToken : `${payer.cardFirst6 ?? ''}${payer.cardLast4 ?? ''}`
}

/** What is wrong with a lookup's answer, or `undefined` when it can be signed. */
export function payerProblem(payer: unknown): string | undefined {
  if (typeof payer !== 'object' || payer === null)
    return 'must be { email, cardFirst6, cardLast4 } or { email, cardToken }'
  const p = payer as Record<string, unknown>
  if (typeof p['email'] !== 'string' || p['email'] === '')
    return 'email must be the non-empty payer email sent with the payment'
  if (p['cardToken'] !== undefined) {
    if (typeof p['cardToken'] !== 'string' || p['cardToken'] === '') return 'cardToken must be a non-empty string'
    return undefined
  }
  if (typeof p['cardFirst6'] !== 'string' || !/^\d{6}$/.test(p['cardFirst6'])) {
    return 'cardFirst6 must be the card number’s first 6 digits (or give cardToken)'
  }
  if (typeof p['cardLast4'] !== 'string' || !/^\d{4}$/.test(p['cardLast4'])) {
    return 'cardLast4 must be the card number’s last 4 digits (or give cardToken)'
  }
  return undefined
}

/**
 * A lookup's answer read once into a plain object, or what is wrong with it. Reading happens here,
 * guarded: an answer whose fields throw when read (a getter, a proxy) is refused like unusable
 * data, and the data checked is the data hashed (a getter cannot answer differently the second time).
 */
export function readPayer(answer: unknown): { readonly payer: PayerCard } | { readonly problem: string } {
  let copy: Record<string, unknown> | undefined
  try {
    if (typeof answer === 'object' && answer !== null) {
      const a = answer as Record<string, unknown>
      copy = { email: a['email'], cardFirst6: a['cardFirst6'], cardLast4: a['cardLast4'], cardToken: a['cardToken'] }
      for (const name of Object.keys(copy)) if (copy[name] === undefined) delete copy[name]
    }
  } catch (error) {
    return { problem: `its fields could not be read (${error instanceof Error ? error.name : typeof error})` }
  }
  const problem = payerProblem(copy ?? answer)
  return problem !== undefined ? { problem } : { payer: copy as unknown as PayerCard }
}

/** The strrev hash, and each step with the password masked (for `explain` and diagnostics). */
export function strrevSignature(
  formula: StrrevFormula,
  parts: StrrevParts,
  password: string | Secret,
  uppercase: UppercaseMode = 'ascii',
): StrrevExplanation {
  const secret = typeof password === 'string' ? password : password.reveal()
  const build = (pw: string): string => {
    switch (formula) {
      case 'schedule-create':
        return strrev(pw)
      case 'schedule':
        return strrev(`${parts.scheduleId ?? ''}${pw}`)
      default: {
        const payer = parts.payer ?? { email: '' }
        const trans = formula === 'transaction' ? (parts.transId ?? '') : ''
        return `${strrev(payer.email)}${pw}${trans}${strrev(cardText(payer))}`
      }
    }
  }
  // The password is reversed with its neighbours on the schedule formulas, so the masked text marks
  // where it stands (a placeholder reversed would read backwards).
  const masked = build('\u0000').replace('\u0000', '{password}')
  const hash = nodeCrypto().hash('md5', upper(build(secret), uppercase), 'hex')
  return {
    formula,
    rule: RULES[formula],
    concatenation: masked,
    uppercased: upper(masked.replace('{password}', '\u0000'), uppercase).replace('\u0000', '{PASSWORD}'),
    hash,
  }
}

// ── one client's request signer ────────────────────────────────────────────────────────────────

/** What a client's request signer is built from (checked options). */
export interface RequestSignerConfig {
  readonly signature: SignatureOption
  readonly password: Secret
  /** The seed formula's signer over values in hash-input order. */
  readonly seed: (values: readonly string[]) => string
  readonly uppercase: UppercaseMode
  readonly hashInputs: (operation: string) => readonly string[] | undefined
  readonly payerLookup: PayerLookup | undefined
}

/** One request's hash from its wire fields, by the client's preset or signer function. */
export type RequestSigner = (
  operation: string,
  wire: Readonly<Record<string, unknown>>,
  published: readonly string[] | null,
) => string

/** The client's request signer: the signer function, the strrev scheme on S2S actions, or the seed formula. */
export function createRequestSigner(config: RequestSignerConfig): RequestSigner {
  const { signature, password, seed, uppercase, hashInputs, payerLookup } = config
  const seedSign: RequestSigner = (operation, wire, published) =>
    seed(seedValues(wire, hashInputs(operation), published, operation))
  if (typeof signature === 'function') {
    return (operation, wire) =>
      callSignatureFunction(signature, operation, wire, password.reveal(), requestSignatureFailure(operation))
  }
  if (signature === 'seed') return seedSign
  return (operation, wire, published) => {
    const action = wireField(wire, 'action')
    // Checkout operations keep the seed formula on this scheme; only S2S actions change.
    if (action === undefined) return seedSign(operation, wire, published)
    const formula = strrevFormulaOf(action)
    if (formula === undefined) {
      throw new RequestValidationError(operation, [
        {
          path: 'signature',
          message: `the card-md5-strrev scheme publishes no signature for ${action}, so the SDK will not guess one: look the payment up by its trans_id (GET_TRANS_STATUS), or sign this action with a signer function (signature: (input) => hash); nothing was sent`,
        },
      ])
    }
    let payer: PayerCard | undefined
    if (formula === 'payment' || formula === 'transaction') {
      const transId = wireField(wire, formula === 'payment' ? 'recurring_first_trans_id' : 'trans_id')
      const orderId = wireField(wire, 'order_id')
      payer = requestPayer(payerLookup, {
        operation,
        ...(transId !== undefined ? { transId } : {}),
        ...(orderId !== undefined ? { orderId } : {}),
      })
    }
    const transId = wireField(wire, 'trans_id')
    const scheduleId = wireField(wire, 'schedule_id')
    return strrevSignature(
      formula,
      {
        ...(payer ? { payer } : {}),
        ...(transId !== undefined ? { transId } : {}),
        ...(scheduleId !== undefined ? { scheduleId } : {}),
      },
      password,
      uppercase,
    ).hash
  }
}

/** Asks the lookup for a request's payer data; unknown or malformed data stops the request. */
function requestPayer(lookup: PayerLookup | undefined, ref: PayerRef): PayerCard {
  const refuse = (message: string): never => {
    throw new RequestValidationError(ref.operation, [{ path: 'payerLookup', message: `${message}; nothing was sent` }])
  }
  if (!lookup) return refuse('the card-md5-strrev scheme signs the payer email and card digits: set payerLookup')
  let payer: PayerCard | undefined
  try {
    payer = lookup(ref)
  } catch (error) {
    return refuse(`threw (${error instanceof Error ? error.name : typeof error}) for ${describeRef(ref)}`)
  }
  if (payer === undefined) return refuse(`knows no payer for ${describeRef(ref)}, so the request cannot be signed`)
  const read = readPayer(payer)
  return 'problem' in read ? refuse(`answered for ${describeRef(ref)}: ${read.problem}`) : read.payer
}

/** `trans_id X, order_id Y`: which payment a lookup was asked about. */
export function describeRef(ref: PayerRef): string {
  const parts = [
    ref.transId !== undefined ? `trans_id ${ref.transId}` : '',
    ref.orderId !== undefined ? `order_id ${ref.orderId}` : '',
  ].filter(Boolean)
  return parts.length > 0 ? parts.join(', ') : 'a payment with neither trans_id nor order_id'
}
