/**
 * From the attacker's side (issue 26): a service (or proxy) that answers one transactions list
 * twice. HTTP/1.1 answers do not name their request, so on a kept-alive connection the copy, written
 * once the next request arrives, reads as that request's answer: the same question, asked later,
 * gets the old answer. Reconciliation decides on that list, so each of its lookups must go on a
 * connection of its own. A payment not yet listed, then listed, must be reconciled from the fresh
 * list, never from the stale one that does not show it.
 */

import { once } from 'node:events'
import { type AddressInfo, createServer, type Socket } from 'node:net'
import type { Intent } from '@paywire/core'
import { expect, it, onTestFinished } from 'vitest'
import { BillPayment } from '../src/index.js'

interface Seen {
  readonly method: string
  readonly path: string
  /** Which connection carried it (1 = the first the server accepted). */
  readonly connection: number
}

/**
 * A raw HTTP/1.1 server that answers the first request on each connection twice. The copy is written
 * only when the next request arrives (on that connection or any other), so it always comes after the
 * client wrote that request: the race no check of an idle socket can win. `answer` gives the JSON
 * body of the n-th request.
 */
async function doubleAnsweringServer(answer: (n: number, seen: Seen) => unknown) {
  const seen: Seen[] = []
  const sockets: Socket[] = []
  const owed = new Map<Socket, string>()
  const server = createServer((socket) => {
    sockets.push(socket)
    const connection = sockets.length
    let served = 0
    let buffered = Buffer.alloc(0)
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end === -1) return
        const head = buffered.subarray(0, end).toString('latin1')
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        if (buffered.length < end + 4 + length) return
        buffered = buffered.subarray(end + 4 + length)
        const [method = '', path = ''] = head.split(' ')
        const request = { method, path, connection }
        seen.push(request)
        // The copy owed goes out first: it reaches its connection after this request was written there.
        for (const [stale, text] of owed) if (!stale.destroyed) stale.write(text)
        owed.clear()
        const body = JSON.stringify(answer(seen.length, request))
        const text = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
        socket.write(text)
        served += 1
        if (served === 1) owed.set(socket, text)
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

it('a payment that went through is never reconciled from a stale copy of an earlier list; each lookup has its own connection', async () => {
  let listed = false
  const payment = {
    transReference: 'T-STALE-1',
    productId: 'AIRTIME-ORANGE',
    amount: 5,
    status: 'SUCCESS',
    idempotencyKey: 'pay-stale-1',
  }
  const server = await doubleAnsweringServer(() => (listed ? [payment] : []))
  // One socket per pool: a second lookup would otherwise open another socket only by chance.
  const bills = new BillPayment({
    baseUrl: server.url,
    clientId: 'test-client',
    clientSecret: 'test-secret',
    maxRetries: 0,
    maxSockets: 1,
  })
  onTestFinished(() => bills.close())

  // An open intent of a payment whose answer was lost (as pendingIntents() returns it).
  const intent: Intent = {
    id: `intent-stale-${process.pid}`,
    service: 'bill-payment',
    operation: 'transactions.execute',
    params: { productId: 'AIRTIME-ORANGE', amount: 5 },
    reconciliation: {
      key: 'Idempotency-Key',
      value: 'pay-stale-1',
      lookup: 'bills.transactions.list() for the payment sent with Idempotency-Key "pay-stale-1"',
    },
    idempotencyKey: 'pay-stale-1',
    createdAt: Date.now(),
  }
  // Looked up before the payment is listed: the list does not show it, which proves nothing.
  const early = await bills.reconcile(intent)
  expect(early.outcome).toBe('still_unknown')

  // The payment is listed now; the same lookup, asked again, must read the new list.
  listed = true
  const late = await bills.reconcile(intent)
  expect(`${late.outcome} (${late.evidence})`).toMatch(/^applied .*T-STALE-1/)
  expect(late.state).toMatchObject({ idempotencyKey: 'pay-stale-1' })
  expect(server.seen.map((r) => `${r.method} ${r.path} #${r.connection}`)).toEqual([
    'GET /api/transactions #1',
    'GET /api/transactions #2',
  ])
})
