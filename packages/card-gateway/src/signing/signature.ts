/** The request signature: `sha1(inner(UPPER(concat)))` over the exact wire strings (rules Authentication 4, 5). */

import { RequestValidationError, type Secret } from '@paywire/core'
import { nodeCrypto } from '@paywire/core/engine'
import type { GatewayContext } from '../fields.js'
import { assertWellFormedText, wireField } from '../wire.js'

/** Inner digest: `md5` by default; some accounts switch to `sha256` in the admin panel (rule Platform 3). */
export type DigestName = 'md5' | 'sha256'

const NON_ASCII = /[\u0080-\uffff]/
/** Up to this many characters, uppercasing text that turns out not to be ASCII costs well under 1 µs. */
const SHORT_TEXT = 256

/**
 * Uppercases ASCII `a`–`z` only, like PHP `strtoupper` (rule Platform 1): `toUpperCase` would turn
 * `é` into `É` and `ß` into `SS`, and the gateway's hash would no longer match.
 */
export function asciiUpper(text: string): string {
  // Pure-ASCII text (the usual case) uppercases identically either way, and toUpperCase is much faster.
  if (text.length > SHORT_TEXT) return NON_ASCII.test(text) ? asciiOnlyUpper(text) : text.toUpperCase()
  // Short text: toUpperCase first, as it flattens text joined from parts and makes the ASCII test after
  // it cheap (the other order is slower: bench/signer.ts); its result is used only when the
  // text is pure ASCII. Long text is tested first, so non-ASCII text is not uppercased for nothing.
  const uppercased = text.toUpperCase()
  return NON_ASCII.test(text) ? asciiOnlyUpper(text) : uppercased
}

function asciiOnlyUpper(text: string): string {
  return text.replace(/[a-z]+/g, (run) => run.toUpperCase())
}

/**
 * How the signature uppercases its input. `ascii` (the platform default, PHP `strtoupper`) changes
 * `a`–`z` only; `unicode` is JavaScript's `toUpperCase` (`é`→`É`, `ß`→`SS`), like PHP `mb_strtoupper`,
 * for gateways that sign that way.
 */
export type UppercaseMode = 'ascii' | 'unicode'

/** Options of `sign` and `explainSignature`. */
export interface SignOptions {
  /** Default `ascii` (platform rule: only ASCII `a`–`z` change). */
  readonly uppercase?: UppercaseMode
}

function upper(text: string, mode: UppercaseMode | undefined): string {
  return mode === 'unicode' ? text.toUpperCase() : asciiUpper(text)
}

function reveal(password: string | Secret): string {
  return typeof password === 'string' ? password : password.reveal()
}

/** One-shot digest (node:crypto `hash`, Node >= 20.12): about half the cost of a `createHash` object. */
function hex(algorithm: string, text: string): string {
  return nodeCrypto().hash(algorithm, text, 'hex')
}

/**
 * Signs `values` (the wire strings, in hash-input order) with `password` appended last:
 * `sha1(md5(UPPER(values… + password)))`, both digests as lowercase hex, UTF-8, no separators.
 * `options.uppercase` picks the uppercasing (default ASCII-only, the platform rule).
 */
export function sign(
  values: readonly string[],
  password: string | Secret,
  digest: DigestName = 'md5',
  options: SignOptions = {},
): string {
  return createSigner(password, digest, options.uppercase ?? 'ascii')(values)
}

/** `sign` bound to one password, digest and uppercasing: what a client signs every request with. */
export type Signer = (values: readonly string[]) => string

/**
 * The signer of one client: the same hash as `sign`. In ASCII mode the password is uppercased once
 * here rather than on every request (ASCII uppercasing is per character, so `UPPER(a + b)` is
 * `UPPER(a) + UPPER(b)`); Unicode uppercasing is not (a surrogate pair may straddle the two), so that
 * mode uppercases the whole text each time.
 */
export function createSigner(password: string | Secret, digest: DigestName, uppercase: UppercaseMode): Signer {
  const plainPassword = reveal(password)
  // One closure per mode, so a request pays for neither the mode test nor an extra call.
  if (uppercase === 'unicode')
    return (values) => hex('sha1', hex(digest, (concat(values) + plainPassword).toUpperCase()))
  const upperPassword = asciiUpper(plainPassword)
  return (values) => hex('sha1', hex(digest, asciiUpper(concat(values)) + upperPassword))
}

/**
 * `values.join('')` without `Array.prototype.join`, which is slower for a few short values (bench/signer.ts):
 * as much as the ASCII test that the platform's uppercasing rule needs on every signature.
 * Like `join`, a missing value adds nothing and any other value adds its `String()` (its `toString`,
 * not its `valueOf`); anything but an array is refused, never signed as the password alone.
 */
function concat(values: readonly string[]): string {
  if (!Array.isArray(values)) {
    throw new RequestValidationError('sign', [
      { path: 'values', message: 'must be an array of the wire strings, in hash-input order' },
    ])
  }
  let text = ''
  for (let i = 0; i < values.length; i++) {
    const value: unknown = values[i]
    // The string test first: `String()` on every value measured 2 % of a signature.
    text += typeof value === 'string' ? value : String(value ?? '')
  }
  return text
}

/** One value that went into a signature, by wire field name. */
export interface SignatureInput {
  readonly name: string
  /** The wire string; `undefined` when the field was absent (it then contributes nothing). */
  readonly value: string | undefined
}

/** Each step of a signature, for debugging "Hash is not valid"; the password is masked everywhere. */
export interface SignatureExplanation {
  readonly digest: DigestName
  readonly inputs: readonly SignatureInput[]
  /** The concatenation, with the password shown as `{password}`. */
  readonly concatenation: string
  /** The uppercased concatenation, with the password shown as `{PASSWORD}`. */
  readonly uppercased: string
  /** The inner digest (md5 or sha256) as lowercase hex text. */
  readonly innerHex: string
  /** The final sha1, as sent in `hash`. */
  readonly hash: string
}

/**
 * Explains a signature step by step (rule Authentication 4): which inputs, the concatenation and
 * the uppercased text with the password masked, the inner hex digest and the final hash.
 */
export function explainSignature(
  inputs: readonly SignatureInput[] | readonly string[],
  password: string | Secret,
  digest: DigestName = 'md5',
  options: SignOptions = {},
): SignatureExplanation {
  const named: SignatureInput[] = inputs.map((input, i) =>
    typeof input === 'string' ? { name: `#${i + 1}`, value: input } : input,
  )
  const joined = named.map((input) => input.value ?? '').join('')
  const innerHex = hex(digest, upper(joined + reveal(password), options.uppercase))
  return {
    digest,
    inputs: named,
    concatenation: `${joined}{password}`,
    uppercased: `${upper(joined, options.uppercase)}{PASSWORD}`,
    innerHex,
    hash: hex('sha1', innerHex),
  }
}

/**
 * How one card operation is signed: its S2S `action` (none for Checkout) and its hash inputs in
 * order, as its row declares them (`SIGNED_OPERATIONS` lists every row's).
 */
export interface SignedOperation {
  /** The S2S CARD `action` field; `undefined` for the Checkout JSON operations. */
  readonly action: string | undefined
  /** Wire fields hashed before the password, in order; `null` when the platform does not publish them. */
  readonly inputs: readonly string[] | null
}

/**
 * How a row is signed, as the row declares it: `finalize` of every card operation (rules
 * Authentication 4, 5). It refuses ill-formed text, then adds `hash` computed by the client's
 * signature (its preset or signer function) from the very wire strings that are sent.
 */
export function signWith(published: readonly string[] | null) {
  return (wire: Record<string, unknown>, ctx: GatewayContext, operation: string): void => {
    assertWellFormedText(operation, wire)
    wire['hash'] = ctx.signRequest(operation, wire, published)
  }
}

/**
 * The seed formula's values for one request: the wire strings of the caller's `hashInputs` for the
 * operation or else the row's `published` inputs, in order. `null` inputs are not published: the
 * caller must name them.
 */
export function seedValues(
  wire: Readonly<Record<string, unknown>>,
  names: readonly string[] | undefined,
  published: readonly string[] | null,
  operation: string,
): string[] {
  const list = names ?? published ?? refuseUnconfigured(operation)
  const values: string[] = []
  for (const name of list) values.push(wireField(wire, name) ?? '')
  return values
}

/** An operation whose hash inputs are not published cannot be signed until the caller names them. */
function refuseUnconfigured(operation: string): never {
  throw new RequestValidationError(operation, [
    {
      path: `hashInputs.${operation}`,
      message:
        'the hash inputs of this action are not published, so the SDK will not guess them: a password-only hash ' +
        'would let anyone who sees one request sign any schedule and test passwords offline. Set ' +
        `hashInputs: { '${operation}': [...] } on the client to the fields your gateway signs (ask its support), ` +
        'or [] to sign the password alone knowingly; nothing was sent',
    },
  ])
}

/** What a card row declares of its signature: its S2S `action` (none for Checkout) and its published hash inputs. */
export interface SignedRow<
  A extends string | undefined = string | undefined,
  H extends readonly string[] | null = readonly string[] | null,
> {
  /** The S2S CARD `action` field the row sends; `undefined` for a Checkout JSON operation. */
  readonly action: A
  /** The wire fields hashed before the password, in order; `null` when the platform does not publish them. */
  readonly hashInputs: H
}

/** `row` with its signature declaration kept on it, so `SIGNED_OPERATIONS` is read from the rows. */
export function withSignature<R extends object, A extends string | undefined, H extends readonly string[] | null>(
  row: R,
  signed: SignedRow<A, H>,
): R & SignedRow<A, H> {
  return Object.freeze({ ...row, action: signed.action, hashInputs: signed.hashInputs })
}
