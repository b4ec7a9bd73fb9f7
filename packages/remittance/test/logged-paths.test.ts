/**
 * What hooks and the logger see of a lookup, from the attacker's side: a payer's telephone in
 * `/api/beneficiaries/telephone/{telephone}` was logged (at warn too, when the lookup failed), and a
 * credential header the caller added (`x-api-key`) reached hooks and logs in clear. They now see the
 * path's template, and every header not known safe as `[redacted]`.
 */

import type { ErrorEvent, RequestEvent, ResponseEvent } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { Remittance } from '../src/index.js'
import { setup } from './helpers.js'

const PHONE = '+233555001122'
const CALLER_KEY = 'caller-added-key-Zq9'

describe('a lookup by telephone as hooks and the logger see it', () => {
  it('the path template and known-safe headers only: never the telephone, never a header the caller added', async () => {
    const ctx = await setup()
    const seen: (RequestEvent | ResponseEvent | ErrorEvent)[] = []
    const lines: unknown[][] = []
    const remit = new Remittance({
      ...ctx.clientOptions,
      maxRetries: 0,
      hooks: {
        onRequest: (event) => void seen.push(event),
        onResponse: (event) => void seen.push(event),
        onError: (event) => void seen.push(event),
      },
      logger: {
        debug: (...args: unknown[]) => void lines.push(args),
        warn: (...args: unknown[]) => void lines.push(args),
      },
    })
    // Not found: the failure is logged at warn, as in production.
    await remit.beneficiaries
      .getByTelephone(PHONE, { headers: { 'x-api-key': CALLER_KEY, 'x-trace-note': 'private-trace-value' } })
      .catch(() => {})
    await remit.close()
    const shown = JSON.stringify({ seen, lines })
    expect(shown).not.toContain(PHONE)
    expect(shown).not.toContain(encodeURIComponent(PHONE))
    expect(shown).not.toContain('555001122')
    expect(shown).not.toContain(CALLER_KEY)
    expect(shown).not.toContain('private-trace-value')
    const request = seen.find((event) => 'headers' in event && !('status' in event)) as RequestEvent
    expect(request.url).toBe(`${ctx.url}/api/beneficiaries/telephone/{telephone}`)
    expect(request.headers['x-api-key']).toBe('[redacted]')
    expect(request.headers['x-trace-note']).toBe('[redacted]')
    expect(request.headers['user-agent']).toMatch(/^paywire-remittance\//)
    expect(lines.some((line) => String(line[0]).includes('/api/beneficiaries/telephone/{telephone}'))).toBe(true)
  })
})
