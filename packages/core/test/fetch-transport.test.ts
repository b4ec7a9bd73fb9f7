import { ApiError, RequestValidationError } from '@paywire/core'
import { unsentOnly } from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { Agent } from 'undici'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { countingFetch, get, jsonHandler, makeClient, post, rejection } from './helpers.js'

async function server(behaviour: Parameters<typeof startFaultServer>[0]) {
  const s = await startFaultServer(behaviour)
  onTestFinished(s.close)
  return s
}

describe('the fetch transport', () => {
  it("calls fetch as a plain function, as the Workers runtime demands (before: 'Illegal invocation' from the transport's this)", async () => {
    const s = await server(faults.json(200, { ok: true }))
    // The Workers runtime's fetch refuses any `this` but the global one or none.
    const strictFetch = function (this: unknown, input: string | URL | Request, init?: RequestInit) {
      if (this !== undefined && this !== globalThis)
        throw new TypeError('Illegal invocation: function called with incorrect `this` reference')
      return fetch(input, init)
    } as typeof fetch
    const client = makeClient({ fetch: strictFetch })
    const { data } = await client.send(get(s.url), jsonHandler).withResponse()
    expect(data).toEqual({ ok: true })
  })

  it('sends through the `fetch` the client was given, and reads its answer', async () => {
    const s = await server(faults.json(200, { ok: true }))
    const fetch = countingFetch()
    const client = makeClient({ fetch })
    onTestFinished(() => client.close())
    const { data, response } = await client.send(get(s.url), jsonHandler).withResponse()
    expect(data).toEqual({ ok: true })
    expect(response).toMatchObject({ status: 200, attempts: 1 })
    expect(fetch.calls).toBe(1)
    expect(s.requests).toHaveLength(1)
  })

  it('never follows a redirect: a 302 is the answer, the target gets nothing', async () => {
    const target = await server(faults.json(200, { result: 'SUCCESS' }))
    const s = await server(faults.json(302, {}, { location: `${target.url}/paid` }))
    const client = makeClient({ fetch: countingFetch() })
    onTestFinished(() => client.close())
    const e = await rejection(client.send(post(s.url, { retry: unsentOnly }), jsonHandler))
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: 302 })
    expect(target.requests).toHaveLength(0)
  })

  it('sends the body and headers as given', async () => {
    const s = await server(faults.json(200, {}))
    const client = makeClient({ fetch: countingFetch() })
    onTestFinished(() => client.close())
    await client.send(post(s.url, { headers: { 'x-extra': 'yes' } }), jsonHandler)
    expect(s.requests[0]).toMatchObject({
      method: 'POST',
      body: '{"amount":"10.00"}',
      headers: expect.objectContaining({ 'x-extra': 'yes', 'content-type': 'application/json' }),
    })
  })

  it('refuses `fetch` together with `dispatcher`, naming both, before anything is sent', () => {
    const dispatcher = new Agent()
    onTestFinished(() => dispatcher.close())
    expect(() => makeClient({ fetch: countingFetch(), dispatcher })).toThrow(RequestValidationError)
    expect(() => makeClient({ fetch: countingFetch(), dispatcher })).toThrow(/fetch.*dispatcher/)
  })

  it("refuses `maxSockets` with `fetch`: the sockets are not the client's to cap", () => {
    expect(() => makeClient({ fetch: countingFetch(), maxSockets: 4 })).toThrow(/maxSockets.*fetch/)
  })

  it('refuses a `fetch` that is not a function', () => {
    expect(() => makeClient({ fetch: 'yes' as unknown as typeof fetch })).toThrow(/fetch.*function/)
  })
})

describe('the runtime in the User-Agent', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('names Node as before', () => {
    expect(makeClient().userAgent).toBe(`paywire-core-test/1.2.3 node/${process.versions.node}`)
  })

  it('names Bun or Deno by their own versions, and a runtime with no process.versions (Workers) without failing', () => {
    vi.stubGlobal('process', { ...process, versions: { node: '22.0.0', bun: '1.4.5' } })
    expect(makeClient().userAgent).toBe('paywire-core-test/1.2.3 bun/1.4.5')
    vi.stubGlobal('process', { ...process, versions: { node: '22.0.0', deno: '2.9.6' } })
    expect(makeClient().userAgent).toBe('paywire-core-test/1.2.3 deno/2.9.6')
    vi.stubGlobal('process', { env: {} })
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' })
    expect(makeClient().userAgent).toBe('paywire-core-test/1.2.3 workers')
  })
})
