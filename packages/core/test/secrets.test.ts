import { inspect } from 'node:util'
import { ProblemDetailsError, redactHeaders, Secret } from '@paywire/core'
import { OperationClient, problemAnswers } from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it } from 'vitest'
import { get, jsonHandler, makeClient } from './helpers.js'

const SECRET = 'sk_live_6f1e0c9a-very-secret'

describe('Secret', () => {
  it('prints [redacted] through String, template literals, JSON and util.inspect', () => {
    const secret = new Secret(SECRET)
    expect(String(secret)).toBe('[redacted]')
    expect(`${secret}`).toBe('[redacted]')
    expect(JSON.stringify({ secret })).toBe('{"secret":"[redacted]"}')
    expect(inspect(secret)).toBe('Secret([redacted])')
    expect(inspect({ nested: { secret } }, { depth: 10, showHidden: true })).not.toContain(SECRET)
    expect(secret.reveal()).toBe(SECRET)
  })
})

describe('header redaction', () => {
  it("redacts credential headers whatever their case (the standard ones and the service's own), and keeps the others", () => {
    expect(
      redactHeaders({ 'X-Code': SECRET, 'x-service-client-secret': SECRET, Authorization: SECRET, accept: 'json' }, [
        'x-code',
        'X-Service-Client-Secret',
      ]),
    ).toEqual({
      'X-Code': '[redacted]',
      'x-service-client-secret': '[redacted]',
      Authorization: '[redacted]',
      accept: 'json',
    })
  })

  it('hooks and the logger never see a credential header value', async () => {
    const s = await startFaultServer((req, res, n) =>
      (n === 1 ? faults.json(503, {}) : faults.json(401, { title: 'no' }))(req, res, n),
    )
    const seen: string[] = []
    const record = (_: string, data?: unknown) => seen.push(inspect(data, { depth: 10 }))
    const client = makeClient({
      random: () => 0,
      hooks: {
        onRequest: (e) => seen.push(JSON.stringify(e)),
        onResponse: (e) => seen.push(JSON.stringify(e)),
        onRetry: (e) => seen.push(JSON.stringify(e)),
        onError: (e) => seen.push(inspect(e, { depth: 10 })),
      },
      logger: { debug: record, warn: record },
    })
    await client
      .send(get(s.url, { credentialHeaders: ['x-code', 'x-service-client-secret'] }), jsonHandler, {
        headers: { 'x-code': SECRET, 'x-service-client-secret': SECRET },
      })
      .catch(() => {})
    await client.close()
    await s.close()
    expect(seen.length).toBeGreaterThanOrEqual(8)
    for (const line of seen) expect(line).not.toContain(SECRET)
    expect(seen.join('\n')).toContain('[redacted]')
    // the real header still went on the wire
    expect(s.requests[0]?.headers['x-code']).toBe(SECRET)
  })

  it('a throwing hook or logger never changes the outcome of a call', async () => {
    const s = await startFaultServer(faults.json(200, { ok: true }))
    const boom = () => {
      throw new Error('observer broke')
    }
    const client = makeClient({ hooks: { onRequest: boom, onResponse: boom }, logger: { debug: boom, warn: boom } })
    await expect(client.send(get(s.url), jsonHandler)).resolves.toEqual({ ok: true })
    await client.close()
    await s.close()
  })
})

describe("a service's own credential headers", () => {
  it('are the names its client sends credentials in: hooks, logs and errors never see their values, whatever the name', async () => {
    // A header name core knows nothing of: the engine learns it from the client's credentials.
    const s = await startFaultServer((req, res, n) =>
      faults.json(n === 1 ? 503 : 401, {}, { 'x-shop-key': SECRET, 'X-Shop-Account': SECRET })(req, res, n),
    )
    const seen: string[] = []
    const record = (_: string, data?: unknown) => seen.push(inspect(data, { depth: 10 }))
    const http = makeClient({
      random: () => 0,
      hooks: {
        onRequest: (e) => seen.push(JSON.stringify(e)),
        onResponse: (e) => seen.push(JSON.stringify(e)),
        onError: (e) => seen.push(inspect(e, { depth: 10 })),
      },
      logger: { debug: record, warn: record },
    })
    const ops = new OperationClient<undefined>({
      http,
      baseUrls: { default: s.url },
      context: undefined,
      authHeaders: () => ({ 'X-Shop-Key': SECRET, 'x-shop-account': SECRET }),
      journal: undefined,
      answers: problemAnswers(class ShopError extends ProblemDetailsError {}),
    })
    const error = await ops.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e)
    await http.close()
    await s.close()
    seen.push(inspect(error, { depth: 10 }), JSON.stringify(error))
    expect(seen.length).toBeGreaterThanOrEqual(6)
    for (const line of seen) expect(line).not.toContain(SECRET)
    expect(seen.join('\n')).toContain('[redacted]')
    // the real headers still went on the wire
    expect(s.requests[0]?.headers['x-shop-key']).toBe(SECRET)
    expect(s.requests[0]?.headers['x-shop-account']).toBe(SECRET)
  })
})
