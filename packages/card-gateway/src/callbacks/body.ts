/**
 * The raw callback body, read into exact strings: refused when it is not the raw body (a parsed
 * object), too large or hostile in shape, then read as a form or as JSON.
 */

import { SignatureVerificationError } from '@paywire/core'
import { parseJsonFields } from './json.js'
import { checkSize, DEFAULT_CALLBACK_MAX_BYTES, duplicate, MAX_CALLBACK_FIELDS, tooManyFields } from './limits.js'

const QUESTION = 0x3f

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
    // UTF-8 takes one to three bytes per UTF-16 unit: the length alone refuses a string longer than
    // the cap (a 16 MiB one costs nothing to refuse) and passes one a third of it; only a length in
    // between is measured.
    if (rawBody.length > maxBodyBytes) checkSize(rawBody.length, maxBodyBytes, true)
    if (rawBody.length * 3 > maxBodyBytes) checkSize(Buffer.byteLength(rawBody, 'utf8'), maxBodyBytes)
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
  for (const [name, value] of asciiPairs(text) ?? new URLSearchParams(text)) {
    if (name in out) throw duplicate(name)
    out[name] = value
  }
  return { ...out }
}

/** Any character outside ASCII: the text is then read by `URLSearchParams` itself. */
const NON_ASCII = /[\u0080-\uffff]/
const PLUS = /\+/g

/**
 * The pairs `URLSearchParams` reads from an ASCII form body, read 5 to 10 times faster: a segment
 * without `%` or `+` is taken as it is, one with them is decoded by `decodeURIComponent` once `+` is a
 * space. `undefined` (read it with `URLSearchParams`) for what the two decoders read differently: a
 * character outside ASCII (`URLSearchParams` replaces a lone surrogate) or a `%` that is not valid
 * percent-encoded UTF-8 (kept, or replaced by U+FFFD, where `decodeURIComponent` throws).
 */
function asciiPairs(text: string): Array<[string, string]> | undefined {
  if (NON_ASCII.test(text)) return undefined
  const pairs: Array<[string, string]> = []
  // The next `=` at or after the segment's start, looked for again only once passed: one scan in all.
  let equals = -1
  for (let i = text.charCodeAt(0) === QUESTION ? 1 : 0; i <= text.length; ) {
    let end = text.indexOf('&', i)
    if (end === -1) end = text.length
    if (end > i) {
      if (equals !== Number.POSITIVE_INFINITY && equals < i) {
        equals = text.indexOf('=', i)
        if (equals === -1) equals = Number.POSITIVE_INFINITY
      }
      const split = Math.min(equals, end)
      const name = decodePart(text.slice(i, split))
      const value = split === end ? '' : decodePart(text.slice(split + 1, end))
      if (name === undefined || value === undefined) return undefined
      pairs.push([name, value])
    }
    i = end + 1
  }
  return pairs
}

function decodePart(part: string): string | undefined {
  const spaced = part.includes('+') ? part.replace(PLUS, ' ') : part
  if (!spaced.includes('%')) return spaced
  try {
    return decodeURIComponent(spaced)
  } catch {
    return undefined
  }
}
