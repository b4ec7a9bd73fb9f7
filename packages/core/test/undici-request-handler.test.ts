/**
 * core subclasses undici's private `RequestHandler` (undici.ts) to learn whether a request was written
 * and to fail a call still waiting for a socket at its deadline. These tests pin the handler's
 * fields and behaviour it relies on, so an undici upgrade that changes them fails here first.
 */

import { describe, expect, it } from 'vitest'

describe("undici's RequestHandler, as core's attempt handler uses it", () => {
  it('starts with no reason, no abort and no response', async () => {
    const { default: request } = await import('undici/lib/api/api-request.js')
    const handler = new request.RequestHandler({ method: 'POST' } as never, () => {})
    expect(handler.reason).toBeNull()
    expect(handler.abort).toBeNull()
    expect(handler.res).toBeNull()
  })

  it('onConnect keeps the abort when no reason is set, and aborts at once when one is', async () => {
    const { default: request } = await import('undici/lib/api/api-request.js')
    const live = new request.RequestHandler({ method: 'POST' } as never, () => {})
    const abortLive = () => {}
    live.onConnect(abortLive)
    expect(live.abort).toBe(abortLive)

    const dropped = new request.RequestHandler({ method: 'POST' } as never, () => {})
    const reason = new Error('deadline')
    dropped.reason = reason
    const aborts: unknown[] = []
    dropped.onConnect((error) => aborts.push(error))
    expect(aborts).toEqual([reason])
  })

  it('onError calls back once; a later error from undici is ignored', async () => {
    const { default: request } = await import('undici/lib/api/api-request.js')
    const calls: unknown[] = []
    const handler = new request.RequestHandler({ method: 'POST' } as never, (error) => calls.push(error))
    const first = new Error('first')
    handler.onError(first)
    handler.onError(new Error('second'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toEqual([first])
  })
})
