/** Header rules of every request and answer: names and values checked before sending, SDK-owned headers, redaction of answers. */

import type { ValidationIssue } from '../errors/errors.js'
import { isSecretHeader, REDACTED_VALUE } from '../secret.js'
import type { HttpRequest } from './request.js'

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid']

/**
 * Request headers the transport owns: undici frames the message itself and refuses these (an
 * `Expect: 100-continue` it cannot honour), so they are refused here, with the field named.
 */
const TRANSPORT_HEADERS = new Set([
  'connection',
  'content-length',
  'expect',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
])

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// Visible Latin-1 and tabs: what HTTP/1.1 carries as field values without reinterpretation.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * The one managed-header rule of every package: a caller's header may not replace one the SDK sets
 * for the operation (credentials, the idempotency key, the body's content type), whatever its case.
 */
export function managedHeaderIssues(
  sdkHeaders: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> | undefined,
): ValidationIssue[] {
  if (extra === undefined) return []
  const managed = new Set(Object.keys(sdkHeaders).map((name) => name.toLowerCase()))
  return Object.keys(extra)
    .filter((name) => managed.has(name.toLowerCase()))
    .map((name) => ({
      path: `headers.${name}`,
      message:
        'is set by the SDK for this operation (credentials come from the client options, an idempotency key from the idempotencyKey option); it cannot be set per call',
    }))
}

/**
 * Header problems undici would only report once the request is under way; found here, they are
 * a `RequestValidationError` and nothing is sent. Values are never quoted: some are credentials.
 */
export function headerIssues(headers: Readonly<Record<string, string>>): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) issues.push({ path: `headers.${name}`, message: 'is not a valid header name' })
    else if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
      issues.push({ path: `headers.${name}`, message: 'is set by the transport from the request itself; remove it' })
    } else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      issues.push({
        path: `headers.${name}`,
        message: 'value must be a string of visible Latin-1 characters (no line breaks or control characters)',
      })
    }
  }
  return issues
}

export function requestIdOf(headers: Readonly<Record<string, string>>): string | undefined {
  for (const name of REQUEST_ID_HEADERS) if (headers[name] !== undefined) return headers[name]
  return undefined
}

/**
 * Response headers as one string per name, with credential headers (`set-cookie`, and the request's
 * `credentialHeaders` should the service echo one) redacted here,
 * once: every place that exposes them (`.withResponse()`, `ApiError.headers`, hooks, logs) holds this copy.
 */
export function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
  credentialHeaders: readonly string[] | undefined,
): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    flat[name] = isSecretHeader(name, credentialHeaders)
      ? REDACTED_VALUE
      : Array.isArray(value)
        ? value.join(', ')
        : value
  }
  return flat
}

/**
 * The headers one call sends: ours (`user-agent`, `accept`), the caller's per-call ones, then the
 * request's own (credentials, an idempotency key), which win, and the body's content type. Copied,
 * not spread: every call's object has one shape (see `rawResponse`).
 */
export function callHeaders(
  userAgent: string,
  req: HttpRequest,
  perCall: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json' }
  if (perCall) copyHeaders(headers, perCall)
  if (req.headers) copyHeaders(headers, req.headers)
  if (req.body) headers['content-type'] = req.body.contentType
  return headers
}

/**
 * Copies each header of `from` into `to` as an own property, as a spread would: a header named
 * `__proto__` (valid, if odd) is defined, where plain assignment would set the prototype instead.
 */
function copyHeaders(to: Record<string, string>, from: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(from)) {
    const value = from[name] as string
    if (name === '__proto__')
      Object.defineProperty(to, name, { value, enumerable: true, writable: true, configurable: true })
    else to[name] = value
  }
}

/**
 * The header rules on what can break them: the request's own headers (credentials, a raw
 * request's headers, the idempotency key) and the caller's per-call headers, which may not
 * replace one the SDK sets. The client's fixed `accept` and the body's content type are ours; the
 * `user-agent` (which carries the caller's `userAgent`) was checked once, at construction
 * (`userAgentIssues`).
 */
export function callHeaderIssues(
  userAgentIssues: readonly ValidationIssue[],
  req: HttpRequest,
  perCall: Readonly<Record<string, string>> | undefined,
): ValidationIssue[] {
  const issues = [...userAgentIssues, ...(req.headers ? headerIssues(req.headers) : [])]
  if (perCall === undefined) return issues
  const sdkHeaders: Record<string, string> = { ...req.headers }
  for (const name of req.managedHeaders ?? []) sdkHeaders[name] ??= ''
  if (req.body) sdkHeaders['content-type'] = req.body.contentType
  return [...managedHeaderIssues(sdkHeaders, perCall), ...issues, ...headerIssues(perCall)]
}
