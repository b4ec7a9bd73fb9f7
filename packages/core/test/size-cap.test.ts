import { ConnectionError, ResponseTooLargeError } from '@paywire/core'
import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { get, jsonHandler, makeClient, TRANSPORTS } from './helpers.js'

describe.each(TRANSPORTS)('response size cap (%s)', (_transport, transport) => {
  it.each([
    ['declared by content-length', false],
    ['streamed in chunks', true],
  ])('refuses a body over maxResponseBytes %s, and is not retried', async (_label, chunked) => {
    const s = await startFaultServer(faults.oversized(300_000, chunked))
    onTestFinished(s.close)
    const client = makeClient({ ...transport(), maxResponseBytes: 100_000 })
    onTestFinished(() => client.close())
    const error = await client.send(get(s.url), jsonHandler).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ResponseTooLargeError)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ limitBytes: 100_000, requestSent: true, status: 200 })
    expect((error as Error).message).toContain('maxResponseBytes')
    expect(s.requests).toHaveLength(1)
  })

  it('releases the socket: the next call on the same client succeeds', async () => {
    const s = await startFaultServer(faults.oversized(300_000, true))
    onTestFinished(s.close)
    const client = makeClient({ ...transport(), maxResponseBytes: 1_000 })
    onTestFinished(() => client.close())
    await expect(client.send(get(s.url), jsonHandler)).rejects.toBeInstanceOf(ResponseTooLargeError)
    s.behave(faults.json(200, { ok: true }))
    await expect(client.send(get(s.url), jsonHandler)).resolves.toEqual({ ok: true })
  })

  it('accepts a body exactly at the limit', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(100) })
    const s = await startFaultServer(faults.text(200, body, 'application/json'))
    onTestFinished(s.close)
    const client = makeClient({ ...transport(), maxResponseBytes: Buffer.byteLength(body) })
    onTestFinished(() => client.close())
    await expect(client.send(get(s.url), jsonHandler)).resolves.toEqual({ pad: 'x'.repeat(100) })
  })
})
