/**
 * Secret scans that no number or id made during the run can fail by chance, and that a leak still
 * fails.
 *
 * Looking for a test secret anywhere in a whole log line, span or message fails whenever a value the
 * run generated happens to hold it, with nothing leaked: pino's `time` 1795737682327 held the test CVV
 * 737 (a CI failure on a clean clone), so could a port (40737), a pid, a duration (0.0611111190 s
 * holds a card number's middle six) or a random UUID. Blanking each such field as it turns up (the
 * port was blanked first) leaves the next one. So a scan tells two kinds of secret apart:
 *
 * - a secret only a person writes (`sim-password`, an e-mail address, a whole 16-digit card number, a
 *   40-character hash, a token) is looked for anywhere in a field, as before: a generated number or a
 *   hex, base64 or UUID id holds it only by a chance too small to matter (10^-16 for 16 digits);
 * - a secret that is a few digits by format (a CVV, a zip code, a card number's middle six, part of a
 *   phone number) is looked for as a token: a run of letters and digits that holds those digits and is
 *   itself a piece of the datum they belong to (`737`; `411111111111`, a card number cut short). A
 *   generated number or id is a token of its own (`1795737682327`, `40737`, `0611111190`, a UUID's
 *   `e111111f`) and no piece of a card number, so it cannot fail the scan; the datum written whole,
 *   cut short, or beside other words (`cvv 737`, `"cvv":"737"`, `cvv=737`, `cvv%20737`) still does.
 *   Glued to letters (`cvv737`) it is one token and passes: splitting letters from digits would make
 *   every hex id (`e737f`) a chance failure again.
 *
 * What chance can still make is a generated value that equals such a piece (a pid 737, a port equal to
 * a 5-digit zip). The scans compare those fields with their known values (a port with the server's,
 * a pid with `process.pid`) and leave them out, so they hide nothing.
 */

import { expect } from 'vitest'

/** Digits a person gave the SDK that must not come back out, and the datum they belong to. */
export interface DigitSecret {
  /** The digits (`737`; a card number's middle six `111111`). */
  readonly digits: string
  /** The datum as the test wrote it (the CVV itself; the whole card number; a hostile field's value). */
  readonly of: string
}

export interface SecretScan {
  /** Secrets no generated value can hold: found anywhere in a text. */
  readonly anywhere: readonly string[]
  /** Secrets that are a few digits by format: found as a token that is a piece of their datum. */
  readonly digits?: readonly DigitSecret[]
}

/** One scanned text and where it came from (a JSON path, or a label for free text). */
export interface ScannedText {
  readonly path: string
  readonly text: string
}

/**
 * Every key and every leaf of a parsed JSON value as text (numbers and booleans written as JSON
 * writes them), each with its path: what a field-aware scan reads.
 */
export function jsonFields(value: unknown, path = '$'): ScannedText[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => jsonFields(item, `${path}[${i}]`))
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => [
      { path: `${path} (key)`, text: key },
      ...jsonFields(item, `${path}.${key}`),
    ])
  return [{ path, text: String(value) }]
}

/**
 * `value` with every field named in `known`, at any depth, checked to hold exactly its known value
 * and then left out: a value the run made up that could equal a secret by chance (a port 55576 is
 * five digits of a test phone number), and once checked can hide nothing. Fails when no such field
 * is there, so a renamed field is noticed instead of scanned unchecked.
 */
export function withoutKnown(value: unknown, known: Readonly<Record<string, unknown>>): unknown {
  let seen = 0
  const strip = (item: unknown, path: string): unknown => {
    if (Array.isArray(item)) return item.map((v, i) => strip(v, `${path}[${i}]`))
    if (item === null || typeof item !== 'object') return item
    const kept: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(item)) {
      if (Object.hasOwn(known, key)) {
        expect(v, `${path}.${key}`).toEqual(known[key])
        seen += 1
      } else kept[key] = strip(v, `${path}.${key}`)
    }
    return kept
  }
  const stripped = strip(value, '$')
  expect(seen, `a field named ${Object.keys(known).join(' or ')}`).toBeGreaterThan(0)
  return stripped
}

/**
 * The forms a text is scanned in: as written, and percent-decoded (with `+` as a space) when that
 * decodes, so `cvv%20737` reads as `cvv 737`. A backslash escape (`\n`, `\u00a0` in JSON or
 * `util.inspect` output) separates tokens as the character it stands for would.
 */
function forms(text: string): string[] {
  const out = [text]
  try {
    const decoded = decodeURIComponent(text.replace(/\+/g, ' '))
    if (decoded !== text) out.push(decoded)
  } catch {
    // not percent-encoded
  }
  return out
}

const ESCAPE = /\\(?:u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|.)/g
const TOKEN = /[A-Za-z0-9]+/g

/** The tokens of `text` that give `secret` away: runs of letters and digits holding its digits that are pieces of its datum. */
export function digitTokens(text: string, secret: DigitSecret): string[] {
  const found: string[] = []
  for (const form of forms(text))
    for (const [token] of form.replace(ESCAPE, ' ').matchAll(TOKEN))
      if (token.includes(secret.digits) && secret.of.includes(token)) found.push(token)
  return found
}

/** What in `text` gives a secret of `scan` away: each secret found, with the token that held it for digits. */
export function secretsIn(text: string, scan: SecretScan): string[] {
  const found: string[] = []
  for (const secret of scan.anywhere) if (forms(text).some((form) => form.includes(secret))) found.push(secret)
  for (const secret of scan.digits ?? [])
    for (const token of digitTokens(text, secret)) found.push(`${secret.digits} (as ${token})`)
  return found
}

/** Fails, naming the text and the secret, when any of `texts` holds a secret of `scan`. */
export function expectNoSecret(texts: string | readonly ScannedText[], scan: SecretScan): void {
  const list = typeof texts === 'string' ? [{ path: 'text', text: texts }] : texts
  const leaks = list.flatMap(({ path, text }) => secretsIn(text, scan).map((secret) => `${path}: ${secret}`))
  expect(leaks).toEqual([])
}
