/** Base URL rules: `https:` everywhere, plain `http:` only to loopback. */

import { RequestValidationError } from '../errors/errors.js'

/** An IPv4 address as WHATWG URL writes a host (`http://2130706433/` reads as 127.0.0.1). */
const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

/** `hostname` as `URL` normalises it (IPv4 dotted, IPv6 compressed in brackets); no `node:net` to load. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  // Only the literal name: `*.localhost` goes through the system resolver, which may answer otherwise.
  if (host === 'localhost') return true
  if (IPV4.test(host)) return host.startsWith('127.')
  return host === '::1'
}

/**
 * Checks a client's base URL at construction and returns it without a trailing slash.
 * Credentials in the URL are refused too: secrets never travel in URLs.
 */
export function checkBaseUrl(option: string, value: unknown, client: string): string {
  const fail = (message: string): never => {
    throw new RequestValidationError(client, [{ path: option, message }], 'options')
  }
  if (typeof value !== 'string' || value === '') return fail('must be a non-empty URL string')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return fail('is not a valid absolute URL')
  }
  if (url.username || url.password) return fail('must not contain credentials; pass keys as client options')
  // A bare trailing `?` or `#` leaves `search` and `hash` empty but stays in `href`.
  if (url.search || url.hash || url.href.includes('?') || url.href.includes('#')) {
    return fail('must not contain a query string or fragment')
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return fail(`must use https: (plain http: is allowed only for loopback hosts, got ${url.hostname})`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail(`must use https:, got ${url.protocol}`)
  return url.href.replace(/\/+$/, '')
}

/** `.` and `..`, literal or percent-encoded: URL parsing reads each as a dot segment (WHATWG URL). */
export function isDotSegment(segment: string): boolean {
  return /^(\.|%2e){1,2}$/i.test(segment)
}

/**
 * Whether a path below a base URL would leave it once parsed: a dot segment anywhere before its
 * query, after URL parsing drops tabs and newlines and reads `\` as `/` (WHATWG URL, http URLs).
 */
export function leavesBasePath(path: string): boolean {
  const beforeQuery = path.replace(/[\t\n\r]/g, '').split(/[?#]/, 1)[0] ?? ''
  return beforeQuery.split(/[/\\]/).some(isDotSegment)
}

/**
 * Encodes one path variable so `/`, `?` and `#` in caller data cannot change the route. `.`, `..`
 * and the empty string are refused: URL parsing treats `%2E%2E` as `..` (WHATWG URL), so no encoding
 * of them is safe.
 */
export function pathSegment(value: string | number, field = 'path variable', operation = 'request'): string {
  const text = String(value)
  const refuse = (message: string): never => {
    throw new RequestValidationError(operation, [{ path: field, message }])
  }
  if (text === '' || isDotSegment(text)) refuse('must not be empty, "." or ".." (it would change the route)')
  try {
    return encodeURIComponent(text)
  } catch {
    return refuse('must be well-formed Unicode (it holds a lone surrogate)')
  }
}

/**
 * Fills a path template (`/api/catalog/{id}`) with its variables, each encoded by `pathSegment`, so
 * no caller value can change the route; a variable without a value is refused by name.
 */
export function expandPath(
  template: string,
  values: Readonly<Record<string, string | number | undefined>>,
  operation = 'request',
): string {
  return template.replace(/\{(\w+)\}/g, (_whole, name: string) => pathSegment(values[name] ?? '', name, operation))
}
