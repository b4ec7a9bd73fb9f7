/** The answer every transport hands the client: one object shape, and its body read as JSON when it is JSON. */

import { requestIdOf } from '../transport/headers.js'
import type { HttpRequest, RawResponse } from '../transport/request.js'

/**
 * Every answer in one shape, built as a literal: objects made by spreading were measured to be
 * several times slower for everything that reads them afterwards.
 */
export function rawResponse(
  status: number,
  headers: Record<string, string>,
  rawBody: string,
  json: unknown,
  attempts: number,
  req: HttpRequest,
): RawResponse {
  return {
    status,
    headers,
    requestId: requestIdOf(headers),
    attempts,
    idempotencyKey: req.idempotencyKey,
    rawBody,
    json,
  }
}

/** JSON whitespace: space, tab, line feed, carriage return. */
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const QUOTE = 0x22

/** Only an object, array or string is read as JSON (a bare number or word is text); no copy to find out. */
export function parseJson(text: string): unknown {
  let i = 0
  while (i < text.length && JSON_SPACE.has(text.charCodeAt(i))) i++
  const first = text.charCodeAt(i)
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET && first !== QUOTE) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
