/**
 * The keep-alive rule for CAPTURE and VOID, from the attacker's side (an independent review of the
 * change found each of these; each test failed before its fix): a raw HTTP/1.1 gateway scripted per
 * request, which answers truthfully except where it owes a stale second answer.
 */

import type { Socket } from 'node:net'
import type { PaywireError } from '@paywire/core'
import { describe, expect, it, onTestFinished } from 'vitest'
import { CardGateway } from '../src/index.js'
import { json, type RawRequest, rawGateway } from './raw-gateway.js'

/** The gateway, closed after the test. */
async function gateway(script: (req: RawRequest) => void) {
  const g = await rawGateway(script)
  onTestFinished(g.close)
  return g
}

/** A client with one connection, so every call after the first is offered the same one. */
function client(url: string, options: Record<string, unknown> = {}) {
  const gw = new CardGateway({
    checkoutUrl: url,
    s2sUrl: url,
    merchantKey: 'mk',
    clientKey: 'ck',
    password: 'pw',
    environment: 'sandbox',
    maxRetries: 0,
    ...('fetch' in options ? {} : { maxSockets: 1 }),
    ...options,
  })
  onTestFinished(() => gw.close())
  return gw
}

const outcome = <T>(p: Promise<T>) =>
  p.then(
    (data) => ({ data, error: undefined as PaywireError | undefined }),
    (error: unknown) => ({ data: undefined, error: error as PaywireError }),
  )

/** The promise for a capture that acted: its own answer, the gateway's proven state, or an unknown outcome. */
function neverMisread(result: { data: unknown; error: PaywireError | undefined }) {
  expect(result.data !== undefined || result.error?.outcomeUnknown === true).toBe(true)
}

const stale400 = (n: number) =>
  json(400, {
    result: 'ERROR',
    error_code: 208003,
    error_message: `capture requested for a payment not in pending status (#${n})`,
  })

describe('CAPTURE and VOID on kept-alive connections, against a gateway that misbehaves', () => {
  it('a connection lent while its last socket closed (connection: close) counts its requests on the new socket', async () => {
    const states: Record<string, string> = { TA: 'PENDING', TB: 'PENDING', TC: 'PENDING' }
    let owed: string | undefined
    const gw = await gateway((req) => {
      const { action = '', trans_id = '' } = req.fields
      if (owed) req.socket.write(owed)
      owed = undefined
      if (action === 'CAPTURE') {
        states[trans_id] = 'SETTLED'
        req.socket.write(json(200, { action, result: 'SUCCESS', status: 'SETTLED', trans_id, n: req.n }))
        return
      }
      const text = json(200, { action, result: 'SUCCESS', status: states[trans_id], trans_id, n: req.n })
      if (req.n === 1) {
        req.socket.end(text.replace('\r\n\r\n', '\r\nconnection: close\r\n\r\n'))
        return
      }
      req.socket.write(text)
      owed = stale400(req.n) // request #2 is answered twice, the copy as the next request arrives
    })
    const pay = client(gw.url)
    const first = pay.s2s.getTransStatus({ trans_id: 'TA' })
    const second = pay.s2s.getTransStatus({ trans_id: 'TB' }) // waits for the one connection
    await expect(first).resolves.toMatchObject({ n: 1 })
    await expect(second).resolves.toMatchObject({ n: 2 })
    const capture = await outcome(pay.s2s.capture({ trans_id: 'TC' }))
    expect(gw.seen.slice(0, 3).map((r) => [r.connection, r.onConnection])).toEqual([
      [1, 1],
      [2, 1],
      [2, 2],
    ])
    expect(states['TC']).toBe('SETTLED')
    // Before: "not pending (#2)" with outcomeUnknown false, for a capture that was made.
    neverMisread(capture)
  })

  it('a stale DECLINED of the same transaction and action is not believed: only an applied answer is', async () => {
    const states: Record<string, string> = { T1: 'PENDING' }
    let owed: string | undefined
    const gw = await gateway((req) => {
      const { action = '', trans_id = '' } = req.fields
      if (owed) req.socket.write(owed)
      owed = undefined
      if (action === 'CAPTURE' && req.n === 1) {
        const declined = json(200, { action, result: 'DECLINED', status: 'PENDING', trans_id, n: req.n })
        req.socket.write(declined)
        owed = declined
        return
      }
      if (action === 'CAPTURE' && states[trans_id] === 'PENDING') {
        states[trans_id] = 'SETTLED'
        req.socket.write(json(200, { action, result: 'SUCCESS', status: 'SETTLED', trans_id, n: req.n }))
        return
      }
      req.socket.write(json(200, { action, result: 'SUCCESS', status: states[trans_id], trans_id, n: req.n }))
    })
    const pay = client(gw.url)
    await expect(pay.s2s.capture({ trans_id: 'T1' })).resolves.toMatchObject({ result: 'DECLINED', n: 1 })
    const again = await outcome(pay.s2s.capture({ trans_id: 'T1' }))
    expect(states['T1']).toBe('SETTLED')
    // Before: the first call's DECLINED (#1), for a capture the gateway made.
    expect(again.data).toMatchObject({ status: 'SETTLED' })
    expect(again.data).not.toMatchObject({ result: 'DECLINED' })
  })

  /** The first request of connection 1 is answered twice: `stale`, cut short (then reset), as the next arrives. */
  async function cutEdge(stale: string) {
    const states: Record<string, string> = { TA: 'PENDING', TB: 'PENDING' }
    let owed = false
    const gw = await gateway((req) => {
      const { action = '', trans_id = '' } = req.fields
      if (owed) {
        owed = false
        req.socket.write(stale)
        setTimeout(() => req.socket.resetAndDestroy(), 20)
        if (action === 'CAPTURE' && states[trans_id] === 'PENDING') states[trans_id] = 'SETTLED'
        return
      }
      if (action === 'CAPTURE' && states[trans_id] === 'PENDING') states[trans_id] = 'SETTLED'
      req.socket.write(json(200, { action, result: 'SUCCESS', status: states[trans_id], trans_id, n: req.n }))
      if (req.connection === 1 && req.onConnection === 1) owed = true
    })
    return { gw, states }
  }
  const cut = (status: number) =>
    `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: 300\r\n\r\n{"result":"ERROR","error_code":2`

  it('undici: a lookup that reads a stale error cut short asks again on a connection of its own', async () => {
    const { gw } = await cutEdge(cut(400))
    const pay = client(gw.url)
    await pay.s2s.getTransStatus({ trans_id: 'TA' })
    await expect(pay.s2s.getTransStatus({ trans_id: 'TB' })).resolves.toMatchObject({ trans_id: 'TB' })
  })

  it('fetch: a capture that reads a stale error cut short is settled, never a definite refusal', async () => {
    const { gw, states } = await cutEdge(cut(400))
    const pay = client(gw.url, { fetch: globalThis.fetch })
    await pay.s2s.getTransStatus({ trans_id: 'TA' })
    // Idle long enough that the runtime's pool reuses the connection (its own idle check is over).
    await new Promise((resolve) => setTimeout(resolve, 20))
    const capture = await outcome(pay.s2s.capture({ trans_id: 'TB' }))
    expect(gw.seen[1]?.connection).toBe(1)
    expect(states['TB']).toBe('SETTLED')
    neverMisread(capture)
  })

  it('the settle lookup is one more attempt: a capture whose settle hangs ends by its timeout, not its total', async () => {
    let owed: string | undefined
    const gw = await gateway((req) => {
      const { action = '', trans_id = '' } = req.fields
      if (owed) req.socket.write(owed)
      owed = undefined
      if (req.n === 1) {
        req.socket.write(json(200, { action, result: 'SUCCESS', status: 'PENDING', trans_id, n: req.n }))
        owed = stale400(req.n)
      }
      // Nothing else is answered: the capture reads the stale copy, and the settle's lookup hangs.
    })
    const pay = client(gw.url, { timeout: 300, totalTimeout: 4_000 })
    await pay.s2s.getTransStatus({ trans_id: 'TA' })
    const started = performance.now()
    const capture = await outcome(pay.s2s.capture({ trans_id: 'TB' }))
    expect(capture.error).toMatchObject({ outcomeUnknown: true, reconciliation: { key: 'trans_id', value: 'TB' } })
    // Before: 4,000 ms (the lookup was given the whole of totalTimeout). Now the capture's attempt
    // and one attempt's time for its settle (300 + 300 ms), plus scheduling slack.
    expect(performance.now() - started).toBeLessThan(1_500)
  })

  it("a raw request() is bound to nothing, so it never reuses a connection: a stale answer there is nobody's", async () => {
    let owed: { socket: Socket; text: string } | undefined
    const gw = await gateway((req) => {
      const { action = '', trans_id = '' } = req.fields
      // The copy goes to the connection it is owed on, as the next request arrives (on any connection).
      if (owed && !owed.socket.destroyed) owed.socket.write(owed.text)
      owed = undefined
      req.socket.write(json(200, { action, result: 'SUCCESS', status: 'PENDING', trans_id, n: req.n }))
      if (req.n === 1) owed = { socket: req.socket, text: stale400(1) }
    })
    const pay = client(gw.url)
    await pay.s2s.getTransStatus({ trans_id: 'TA' })
    // Before: GET on the kept-alive connection 1, failing with the stale "not pending (#1)".
    const raw = await pay.request({ method: 'GET', path: '/post', base: 's2s' })
    expect(raw).toMatchObject({ n: 2 })
    expect(gw.seen.map((r) => r.connection)).toEqual([1, 2])
  })
})
