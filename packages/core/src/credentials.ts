/** One credential check for every client: keys and secrets become `Secret`s, or the client is refused. */

import { RequestValidationError, type ValidationIssue } from './errors/errors.js'
import { Secret } from './secret.js'

/**
 * Where a credential travels: `header` (a header value: visible ASCII only, since a space is a
 * paste error and a line break could smuggle a header) or `text` (a body field or hash input: any
 * text without control characters).
 */
export type CredentialUse = 'header' | 'text'

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/
const VISIBLE_ASCII = /^[\x21-\x7e]+$/

function credentialIssue(name: string, value: unknown, use: CredentialUse): ValidationIssue | undefined {
  const text = value instanceof Secret ? value.reveal() : value
  if (typeof text !== 'string' || text.trim() === '') {
    return { path: name, message: 'is required: a non-empty string or a Secret' }
  }
  if (use === 'header' && !VISIBLE_ASCII.test(text)) {
    return {
      path: name,
      message: 'must be visible ASCII characters only (it is sent as a header: no spaces or line breaks)',
    }
  }
  if (CONTROL.test(text)) return { path: name, message: 'must not contain control characters' }
  if (text.trim() !== text) {
    // A pasted key with a stray space or newline would be sent or hashed with it and fail as "wrong key".
    return { path: name, message: 'must not begin or end with whitespace (a copy-paste leftover?)' }
  }
  return undefined
}

/**
 * Reads the named credentials of a client's options (strings or `Secret`s), checking all of them
 * and listing every problem in one `RequestValidationError`; a value is never quoted. Options that
 * are missing altogether (`new Client(undefined)`) get the same error, not a `TypeError`.
 */
export function readCredentials<const N extends string>(
  client: string,
  options: unknown,
  credentials: Readonly<Record<N, CredentialUse>>,
): Record<N, Secret> {
  const given = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>
  const issues: ValidationIssue[] = []
  const secrets = {} as Record<N, Secret>
  for (const [name, use] of Object.entries(credentials) as [N, CredentialUse][]) {
    const value = given[name]
    const issue = credentialIssue(name, value, use)
    if (issue) issues.push(issue)
    else secrets[name] = value instanceof Secret ? value : new Secret(value as string)
  }
  if (issues.length > 0) throw new RequestValidationError(client, issues, 'options')
  return secrets
}
