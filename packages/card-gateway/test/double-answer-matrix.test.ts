/**
 * The double-answer matrix (issue 39): a gateway that answers the first request on each connection
 * twice. The stale copy is an error envelope, a success naming the earlier transaction, or a success
 * of the same transaction the next call is about; it arrives with the first answer, 30 ms or 100 ms
 * after it, or as the next request arrives; the next call starts 0, 15 or 150 ms after the first.
 * Every call must end with its own answer, with a state the gateway proves (a settle or a second
 * ask on a connection of its own), or as an unknown outcome: never misread. Run on the undici
 * transport (the client's own kept-alive connections) and on the fetch transport (the runtime's).
 * A raw keep-alive undici client against the same server is the control: it does misread.
 */

import { PaywireError } from '@paywire/core'
import { Client } from 'undici'
import { describe, expect, it } from 'vitest'
import { CardGateway } from '../src/index.js'
import { json, rawGateway } from './raw-gateway.js'

type CopyKind = 'error envelope' | 'success naming the earlier transaction' | 'success of the same transaction'
type CopyTiming = 'with the answer' | 30 | 100 | 'as the next request arrives'
type Operation = 'capture' | 'void' | 'getTransStatus' | 'creditVoid'

const KINDS: readonly CopyKind[] = [
  'error envelope',
  'success naming the earlier transaction',
  'success of the same transaction',
]
const TIMINGS: readonly CopyTiming[] = ['with the answer', 30, 100, 'as the next request arrives']
const GAPS = [0, 15, 150] as const

const ACTION: Record<Operation, string> = {
  capture: 'CAPTURE',
  void: 'VOID',
  getTransStatus: 'GET_TRANS_STATUS',
  creditVoid: 'CREDITVOID',
}

interface Seen {
  readonly n: number
  readonly connection: number
  readonly action: string
  readonly transId: string
  /** Whether the request moved the transaction (a capture, void or refund made). */
  readonly applied: boolean
}

/** A raw S2S gateway over HTTP/1.1 that answers each connection's first request twice. */
async function doubleAnsweringGateway(kind: CopyKind, timing: CopyTiming, states: Record<string, string>) {
  const seen: Seen[] = []
  const owed: Array<() => void> = []
  const timers = new Set<NodeJS.Timeout>()
  const answer = (n: number, fields: Record<string, string>) => {
    const action = fields['action'] ?? ''
    const transId = fields['trans_id'] ?? ''
    const status = states[transId]
    const moved = (to: string, result = 'SUCCESS') => {
      states[transId] = to
      return { applied: true, text: json(200, { action, result, status: to, trans_id: transId, n }) }
    }
    const refuse = (code: number, message: string) => ({
      applied: false,
      text: json(400, { result: 'ERROR', error_code: code, error_message: `${message} (#${n})` }),
    })
    if (action === 'GET_TRANS_STATUS') {
      return { applied: false, text: json(200, { action, result: 'SUCCESS', status, trans_id: transId, n }) }
    }
    if (action === 'CAPTURE') {
      return status === 'PENDING'
        ? moved('SETTLED')
        : refuse(208003, 'capture requested for a payment not in pending status')
    }
    if (action === 'VOID') return status === 'PENDING' ? moved('VOID') : refuse(204005, 'Payment action not supported')
    if (action === 'CREDITVOID') {
      return status === 'SETTLED' ? moved('REFUND', 'ACCEPTED') : refuse(208005, 'associated with the settled state')
    }
    return refuse(0, 'Route or parameters is not supported')
  }
  // Both successes are a copy of the first answer: of the earlier transaction, or (when the first
  // call was about the next call's transaction) of the same one.
  const copyOf = (n: number, first: string) =>
    kind === 'error envelope'
      ? json(400, {
          result: 'ERROR',
          error_code: 208003,
          error_message: `capture requested for a payment not in pending status (#${n})`,
        })
      : first
  const gateway = await rawGateway(({ n, connection, onConnection, fields, socket }) => {
    // A copy owed "as the next request arrives" goes out first, after that request was written.
    for (const pay of owed.splice(0)) pay()
    const { applied, text } = answer(n, fields)
    seen.push({ n, connection, action: fields['action'] ?? '', transId: fields['trans_id'] ?? '', applied })
    if (onConnection > 1) {
      socket.write(text)
      return
    }
    const copy = copyOf(n, text)
    if (timing === 'with the answer') {
      socket.write(text + copy)
      return
    }
    socket.write(text)
    const pay = () => {
      if (!socket.destroyed) socket.write(copy)
    }
    if (timing === 'as the next request arrives') owed.push(pay)
    else {
      const timer = setTimeout(() => {
        timers.delete(timer)
        pay()
      }, timing)
      timers.add(timer)
    }
  })
  return {
    url: gateway.url,
    seen,
    close: () => {
      for (const timer of timers) clearTimeout(timer)
      return gateway.close()
    },
  }
}

type Verdict = 'own answer' | 'settled by the gateway' | 'outcome unknown' | 'misread'

interface Cell {
  readonly transport: 'undici' | 'fetch'
  readonly operation: Operation
  readonly kind: CopyKind
  readonly timing: CopyTiming
  readonly gapMs: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One cell: a lookup of the first transaction (answered twice), then the call under test. */
async function run(cell: Cell): Promise<{ verdict: Verdict; detail: string }> {
  const target = cell.kind === 'success of the same transaction' ? 'TB' : 'TA'
  const states: Record<string, string> = { TA: 'PENDING', TB: cell.operation === 'creditVoid' ? 'SETTLED' : 'PENDING' }
  const gateway = await doubleAnsweringGateway(cell.kind, cell.timing, states)
  const gw = new CardGateway({
    checkoutUrl: gateway.url,
    s2sUrl: gateway.url,
    merchantKey: 'mk',
    clientKey: 'ck',
    password: 'pw',
    environment: 'sandbox',
    maxRetries: 0,
    ...(cell.transport === 'fetch' ? { fetch: globalThis.fetch } : { maxSockets: 1 }),
  })
  try {
    await gw.s2s.getTransStatus({ trans_id: target })
    if (cell.gapMs > 0) await sleep(cell.gapMs)
    const before = gateway.seen.length
    const result = await gw.s2s[cell.operation]({ trans_id: 'TB' }).then(
      (data) => ({ data: data as Record<string, unknown>, error: undefined }),
      (error: unknown) => ({ data: undefined, error }),
    )
    const own = gateway.seen.slice(before).find((s) => s.action === ACTION[cell.operation] && s.transId === 'TB')
    if (own === undefined) return { verdict: 'misread', detail: 'the call never reached the gateway' }
    if (result.error !== undefined) {
      const e = result.error as PaywireError
      if (e instanceof PaywireError && e.outcomeUnknown) return { verdict: 'outcome unknown', detail: e.message }
      return { verdict: 'misread', detail: `failed, though its own answer (#${own.n}) was a success: ${String(e)}` }
    }
    const data = result.data as Record<string, unknown>
    if (data['n'] === own.n) return { verdict: 'own answer', detail: '' }
    // The gateway's own word on this transaction, asked on a connection of its own (a settle of a
    // capture or void that acted, or a lookup asked again): true of TB as it is.
    const asked = gateway.seen.find((s) => s.n === data['n'])
    const truthful =
      asked !== undefined &&
      asked.action === 'GET_TRANS_STATUS' &&
      asked.transId === 'TB' &&
      data['trans_id'] === 'TB' &&
      data['status'] === states['TB'] &&
      (cell.operation === 'getTransStatus' || own.applied)
    if (truthful) return { verdict: 'settled by the gateway', detail: '' }
    return { verdict: 'misread', detail: `resolved with #${String(data['n'])}'s answer, not its own #${own.n}` }
  } finally {
    await gw.close()
    await gateway.close()
  }
}

/** Every cell of `operations` on `transport`, a few at a time (each has its own gateway and client). */
async function matrix(transport: Cell['transport'], operations: readonly Operation[]) {
  const cells: Cell[] = []
  for (const operation of operations)
    for (const kind of KINDS)
      for (const timing of TIMINGS) for (const gapMs of GAPS) cells.push({ transport, operation, kind, timing, gapMs })
  const verdicts: Array<{ cell: Cell; verdict: Verdict; detail: string }> = []
  let next = 0
  const worker = async () => {
    while (next < cells.length) {
      const cell = cells[next++] as Cell
      verdicts.push({ cell, ...(await run(cell)) })
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  const count = (verdict: Verdict) => verdicts.filter((v) => v.verdict === verdict).length
  return {
    cells: verdicts.length,
    own: count('own answer'),
    settled: count('settled by the gateway'),
    unknown: count('outcome unknown'),
    misread: verdicts.filter((v) => v.verdict === 'misread'),
  }
}

/** A misread cell in one line, so a failure says which cell and why. */
function described({ cell, verdict, detail }: { cell: Cell; verdict: Verdict; detail: string }): string {
  return `${cell.transport} ${cell.operation}, ${cell.kind}, ${cell.timing}, next call ${cell.gapMs} ms after: ${verdict} (${detail})`
}

describe('a gateway that answers twice: no call takes another call’s answer for its own', () => {
  it('undici transport: CAPTURE and VOID (kept alive, bound), GET_TRANS_STATUS, CREDITVOID (a connection of its own)', async () => {
    const figures = await matrix('undici', ['capture', 'void', 'getTransStatus', 'creditVoid'])
    console.info('double-answer matrix (undici):', JSON.stringify({ ...figures, misread: figures.misread.length }))
    expect(figures.misread.map(described)).toEqual([])
    expect(figures.cells).toBe(4 * 36)
    // Not vacuous: the stale copies were read, and each was refused, settled or asked again.
    expect(figures.settled + figures.unknown).toBeGreaterThan(0)
  }, 60_000)

  it('fetch transport: CAPTURE and VOID (the runtime may reuse any connection) and GET_TRANS_STATUS', async () => {
    const figures = await matrix('fetch', ['capture', 'void', 'getTransStatus'])
    console.info('double-answer matrix (fetch):', JSON.stringify({ ...figures, misread: figures.misread.length }))
    expect(figures.misread.map(described)).toEqual([])
    expect(figures.cells).toBe(3 * 36)
    expect(figures.settled + figures.unknown).toBeGreaterThan(0)
  }, 60_000)

  it('the control: a raw keep-alive undici client against the same gateway reads the stale copy as its answer', async () => {
    const states: Record<string, string> = { TA: 'PENDING', TB: 'PENDING' }
    const gateway = await doubleAnsweringGateway('error envelope', 'as the next request arrives', states)
    const client = new Client(gateway.url, { pipelining: 1 })
    try {
      const post = async (fields: Record<string, string>) => {
        const res = await client.request({
          method: 'POST',
          path: '/post',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        })
        return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> }
      }
      await post({ action: 'GET_TRANS_STATUS', trans_id: 'TA' })
      const capture = await post({ action: 'CAPTURE', trans_id: 'TB' })
      // The capture was made (TB settled), yet the client read "not pending" from request #1.
      expect(states['TB']).toBe('SETTLED')
      expect(capture).toMatchObject({ status: 400, body: { error_code: 208003 } })
      expect(String(capture.body['error_message'])).toContain('(#1)')
    } finally {
      await client.close()
      await gateway.close()
    }
  })
})
