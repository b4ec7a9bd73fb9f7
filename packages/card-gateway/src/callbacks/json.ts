/**
 * The JSON callback reader: one linear pass that is also the validity check, each top-level member
 * kept as the exact text received, and the shape limits enforced as it goes (never recursing).
 */

import { SignatureVerificationError } from '@paywire/core'
import { duplicate, MAX_CALLBACK_DEPTH, MAX_CALLBACK_FIELDS, tooDeep, tooManyFields } from './limits.js'

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
export function parseJsonFields(text: string, start: number): Record<string, string> {
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
