/** The raw escape hatch: any method and path on the same pipeline, for what the typed surface lacks. */

import { RequestValidationError, type ValidationIssue } from '../errors/errors.js'
import { managedHeaderIssues } from '../transport/headers.js'
import type { HttpMethod, HttpRequest } from '../transport/request.js'
import { leavesBasePath } from '../transport/url.js'
import { formBody, jsonBody, type Query, withQuery } from './encode.js'
import { type RetryPolicy, safe, unsentOnly } from './retry.js'

export interface RawRequestInput {
  readonly method: HttpMethod
  /** Path below the base URL, starting with `/`; encode path variables with `pathSegment`. */
  readonly path: string
  readonly query?: Query
  /** Sent as JSON. */
  readonly body?: unknown
  /** Sent as `application/x-www-form-urlencoded` instead of `body`. */
  readonly form?: Readonly<Record<string, string | undefined>>
  readonly headers?: Readonly<Record<string, string>>
  /** Default: `safe` for GET, `unsent-only` for everything else (it might move money). */
  readonly retry?: RetryPolicy
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

/** Builds the wire request for `client.request(...)`, refusing paths that could leave the base URL. */
export function buildRawRequest(
  operation: string,
  baseUrl: string,
  input: RawRequestInput,
  headers: Readonly<Record<string, string>>,
  managedHeaders: readonly string[] = [],
): HttpRequest {
  const issues: ValidationIssue[] = []
  if (!METHODS.has(input.method)) issues.push({ path: 'method', message: `must be one of ${[...METHODS].join(', ')}` })
  if (typeof input.path !== 'string' || !input.path.startsWith('/') || input.path.startsWith('//')) {
    issues.push({ path: 'path', message: 'must be a path starting with a single "/" (no scheme or host)' })
  } else if (leavesBasePath(input.path)) {
    // URL parsing resolves `.` and `..` (also percent-encoded, also after a `\`): `/../admin` below
    // `https://gateway.example/sandbox` is `https://gateway.example/admin`, another environment's path.
    issues.push({ path: 'path', message: 'must not contain a "." or ".." segment (it would leave the base URL)' })
  }
  if (input.body !== undefined && input.form !== undefined) {
    issues.push({ path: 'body', message: 'give either body (JSON) or form, not both' })
  }
  const owned = Object.fromEntries([...managedHeaders.map((name) => [name, '']), ...Object.entries(headers)])
  issues.push(...managedHeaderIssues(owned, input.headers))
  if (issues.length > 0) throw new RequestValidationError(operation, issues)
  const body =
    input.form !== undefined ? formBody(input.form) : input.body !== undefined ? jsonBody(input.body) : undefined
  return {
    operation,
    method: input.method,
    url: withQuery(baseUrl + input.path, input.query),
    headers: { ...input.headers, ...headers },
    ...(body ? { body } : {}),
    retry: input.retry ?? (input.method === 'GET' ? safe : unsentOnly),
    managedHeaders,
  }
}
