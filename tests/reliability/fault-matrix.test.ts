/**
 * Fault matrix (issue 8): every package × every fault, through the real undici transport, for a
 * retry-safe lookup and a write that is not retry-safe. Each cell checks the deadline, the error
 * class and its fields, and how many requests the server received.
 */

import type { TimeoutPhase } from '@paywire/core'
import { type ClientOptions, ConnectionError, ResponseTooLargeError, systemClock, TimeoutError } from '@paywire/core'
import {
  createTestClock,
  type FaultBehaviour,
  faults,
  refusedUrl,
  startFaultServer,
  type TestClock,
} from '@paywire/core/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { outcome, PACKAGES, type PackageUnderTest } from './support/packages.js'
import { recordResults } from './support/results.js'
import { startInterimContinueServer, startStaleSocketServer } from './support/servers.js'

const TIMEOUT_MS = 300
const MAX_RETRIES = 2
const TOTAL_TIMEOUT_MS = 10_000
/** Slack on top of the configured deadline for the wall clock (2 shared cores, loaded by other files). */
const WALL_SLACK_MS = 2_500
const SIZE_CAP = 4_096

/** A success body every lookup and write of the three packages accepts. */
// Names the subject of every package's lookup (the card's trans_id, the remittance reference): an
// answer that names none is not believed (card rule Platform 27, remittance rule Platform 19).
const SUCCESS_BODY = JSON.stringify({
  result: 'SUCCESS',
  status: 'SETTLED',
  trans_id: 'trans-1',
  order_id: 'o-1',
  referenceNumber: 'RN-1',
})
const HTML_PAGE = '<html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>nginx</p></body></html>'

type Expected =
  | { readonly kind: 'success'; readonly attempts: number; readonly received: number }
  | {
      readonly kind: 'connection' | 'timeout' | 'too-large' | 'api' | 'unreadable'
      readonly requestSent: boolean
      readonly phase?: TimeoutPhase
      readonly status?: number
      readonly attempts: number
      /** Requests the server received for this call (refused connections: 0). */
      readonly received: number
      /** Backoff the test clock recorded, when the cell pins it. */
      readonly sleeps?: readonly number[]
    }

interface Fault {
  readonly name: string
  /** A fault-server behaviour, a refused port, the stale keep-alive socket server, or a 100 Continue first. */
  readonly serve: FaultBehaviour | 'refused' | 'stale' | 'interim-100'
  /** Make one successful lookup first, so the pool holds an idle keep-alive socket. */
  readonly prime?: boolean
  readonly options?: Partial<ClientOptions>
  /** The deadline the call must end within, wall clock, before slack. */
  readonly deadlineMs: number
  readonly lookup: Expected
  readonly write: Expected
  /** Where a package's write differs: the card's CAPTURE may go on a kept-alive connection. */
  readonly writeOf?: Readonly<Record<string, Expected>>
}

/** What the cell expects of its call. */
function expectedOf(cell: Cell): Expected {
  if (cell.operation === 'write') return cell.fault.writeOf?.[cell.pkg.name] ?? cell.fault.write
  return cell.fault.lookup
}

const RETRIED = MAX_RETRIES + 1

/** Answers, then closes the (now idle) keep-alive socket shortly after: the server's idle timeout. */
const closeWhenIdle: FaultBehaviour = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' })
  res.end(SUCCESS_BODY, () => setTimeout(() => req.socket.destroy(), 5))
}
const html = (status: number, headers: Record<string, string> = {}) =>
  faults.text(status, HTML_PAGE, 'text/html', headers)

/** The issue's fault list, one row each (plus two deadline rows). */
const FAULTS: readonly Fault[] = [
  {
    name: 'connection refused',
    serve: 'refused',
    deadlineMs: 0,
    // Provably unsent: even the write may be retried, and nothing ever arrives.
    lookup: { kind: 'connection', requestSent: false, attempts: RETRIED, received: 0 },
    write: { kind: 'connection', requestSent: false, attempts: RETRIED, received: 0 },
  },
  {
    name: 'reset before answering',
    serve: faults.resetBeforeAnswer(),
    deadlineMs: 0,
    lookup: { kind: 'connection', requestSent: true, attempts: RETRIED, received: RETRIED },
    write: { kind: 'connection', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'reset in the middle of the body',
    serve: faults.resetMidBody(),
    deadlineMs: 0,
    lookup: { kind: 'connection', requestSent: true, attempts: RETRIED, received: RETRIED },
    write: { kind: 'connection', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'accepts and never sends headers',
    serve: faults.neverAnswer(),
    deadlineMs: RETRIED * TIMEOUT_MS,
    lookup: { kind: 'timeout', phase: 'headers', requestSent: true, attempts: RETRIED, received: RETRIED },
    write: { kind: 'timeout', phase: 'headers', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'sends headers then trickles the body',
    serve: faults.trickleBody(25),
    deadlineMs: RETRIED * TIMEOUT_MS,
    lookup: { kind: 'timeout', phase: 'body', requestSent: true, attempts: RETRIED, received: RETRIED },
    write: { kind: 'timeout', phase: 'body', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'total deadline shorter than one attempt',
    serve: faults.neverAnswer(),
    // Real clock here: the total deadline is what must fire, after 250 ms and never later.
    options: { clock: systemClock, timeout: 5_000, totalTimeout: 250, backoff: { baseDelayMs: 1_000 } },
    deadlineMs: 250,
    lookup: { kind: 'timeout', phase: 'total', requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'timeout', phase: 'total', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: '502 with an HTML page',
    serve: html(502),
    deadlineMs: 0,
    lookup: { kind: 'api', status: 502, requestSent: true, attempts: RETRIED, received: RETRIED },
    write: { kind: 'api', status: 502, requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: '503 with an HTML page',
    serve: html(503),
    deadlineMs: 0,
    lookup: { kind: 'api', status: 503, requestSent: true, attempts: RETRIED, received: RETRIED },
    write: { kind: 'api', status: 503, requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: '503 with Retry-After',
    serve: html(503, { 'retry-after': '2' }),
    deadlineMs: 0,
    lookup: {
      kind: 'api',
      status: 503,
      requestSent: true,
      attempts: RETRIED,
      received: RETRIED,
      sleeps: [2_000, 2_000],
    },
    write: { kind: 'api', status: 503, requestSent: true, attempts: 1, received: 1, sleeps: [] },
  },
  {
    name: '503 with a Retry-After past the total deadline',
    serve: html(503, { 'retry-after': '30' }),
    deadlineMs: 0,
    lookup: { kind: 'api', status: 503, requestSent: true, attempts: 1, received: 1, sleeps: [] },
    write: { kind: 'api', status: 503, requestSent: true, attempts: 1, received: 1, sleeps: [] },
  },
  {
    name: '302 to another host with a success body',
    serve: faults.text(302, SUCCESS_BODY, 'application/json', { location: 'http://127.0.0.1:9/steal' }),
    deadlineMs: 0,
    // Success is 2xx only; a redirect is never followed (no credential leaves for the Location) nor retried.
    lookup: { kind: 'api', status: 302, requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'api', status: 302, requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: '307 with a success body',
    serve: faults.text(307, SUCCESS_BODY, 'application/json', { location: '/again' }),
    deadlineMs: 0,
    lookup: { kind: 'api', status: 307, requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'api', status: 307, requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: '304 with no body',
    serve: faults.text(304, '', 'application/json'),
    deadlineMs: 0,
    lookup: { kind: 'api', status: 304, requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'api', status: 304, requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'interim 100 Continue before a 200',
    serve: 'interim-100',
    deadlineMs: 0,
    // undici 7's HTTP/1.1 client drops the connection on an unsolicited 100 (nodejs/undici#197):
    // the request was processed, so the write is an unknown outcome; the lookup is retried.
    lookup: { kind: 'connection', requestSent: true, attempts: RETRIED, received: RETRIED },
    write: { kind: 'connection', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'truncated JSON',
    serve: faults.truncatedJson(),
    deadlineMs: 0,
    lookup: { kind: 'unreadable', status: 200, requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'unreadable', status: 200, requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'non-JSON 200',
    serve: faults.text(200, 'OK', 'text/plain'),
    deadlineMs: 0,
    lookup: { kind: 'unreadable', status: 200, requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'unreadable', status: 200, requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'body over the size cap (content-length)',
    serve: faults.oversized(256 * 1024),
    deadlineMs: 0,
    lookup: { kind: 'too-large', requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'too-large', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'body over the size cap (chunked)',
    serve: faults.oversized(256 * 1024, true),
    deadlineMs: 0,
    lookup: { kind: 'too-large', requestSent: true, attempts: 1, received: 1 },
    write: { kind: 'too-large', requestSent: true, attempts: 1, received: 1 },
  },
  {
    name: 'idle keep-alive socket closed by the server',
    serve: closeWhenIdle,
    prime: true,
    deadlineMs: 0,
    // The pool noticed the close: a fresh connection, one request, no error.
    lookup: { kind: 'success', attempts: 1, received: 1 },
    write: { kind: 'success', attempts: 1, received: 1 },
  },
  {
    name: 'stale keep-alive socket (closed as the request was written)',
    serve: 'stale',
    prime: true,
    deadlineMs: 0,
    // The lookup is retried on a fresh connection and succeeds. A transfer or bill payment never
    // goes on a pooled socket (a connection of its own), so the race cannot reach it. The card's
    // CAPTURE may (its answer is bound, its repeat refused by state): it meets the reset, and its
    // outcome is settled at once by GET_TRANS_STATUS on a new connection, which shows SETTLED.
    lookup: { kind: 'success', attempts: 2, received: 2 },
    write: { kind: 'success', attempts: 1, received: 1 },
    writeOf: { 'card-gateway': { kind: 'success', attempts: 1, received: 2 } },
  },
]

type Operation = 'lookup' | 'write'

interface Cell {
  readonly pkg: PackageUnderTest
  readonly fault: Fault
  readonly operation: Operation
}

const CELLS: readonly Cell[] = PACKAGES.flatMap((pkg) =>
  FAULTS.flatMap((fault) => (['lookup', 'write'] as const).map((operation) => ({ pkg, fault, operation }))),
)

const survived: string[] = []

interface Target {
  readonly url: string
  readonly received: () => number
  /** Recorded requests (fault server only), for wire checks of the write's idempotency key. */
  readonly requests: () => readonly { headers: Readonly<Record<string, string>>; body: string }[]
  /** Work done before the call under test (the stale socket needs a pooled connection first). */
  readonly prime: (call: () => Promise<unknown>) => Promise<void>
  readonly close: () => Promise<void>
}

async function serve(fault: Fault): Promise<Target> {
  if (fault.serve === 'refused') {
    const url = await refusedUrl()
    return { url, received: () => 0, requests: () => [], prime: async () => {}, close: async () => {} }
  }
  if (fault.serve === 'stale' || fault.serve === 'interim-100') {
    const server = await (fault.serve === 'stale' ? startStaleSocketServer : startInterimContinueServer)(SUCCESS_BODY)
    let before = 0
    return {
      url: server.url,
      received: () => server.received() - before,
      requests: () => [],
      prime: async (lookup) => {
        await lookup()
        // The fault needs the pooled socket to be idle (back in the pool) when the next call starts.
        await new Promise((resolve) => setTimeout(resolve, 25))
        before = server.received()
      },
      close: server.close,
    }
  }
  const server = await startFaultServer(fault.serve)
  let before = 0
  return {
    url: server.url,
    received: () => server.requests.length - before,
    requests: () => server.requests.slice(before),
    prime: async (lookup) => {
      await lookup()
      await new Promise((resolve) => setTimeout(resolve, 25))
      before = server.requests.length
    },
    close: server.close,
  }
}

function label(cell: Cell): string {
  const op = cell.operation === 'lookup' ? cell.pkg.lookupName : cell.pkg.writeName
  const expected = expectedOf(cell)
  const what =
    expected.kind === 'success'
      ? `succeeds after ${expected.attempts} attempts`
      : `fails as ${expected.kind}${expected.kind === 'timeout' ? ` (${expected.phase})` : ''}${'status' in expected && expected.status ? ` ${expected.status}` : ''}, requestSent ${expected.requestSent}, received ${expected.received}x`
  return `${cell.pkg.name} ${op} [${cell.operation === 'lookup' ? 'retry-safe' : 'not retry-safe'}] × ${cell.fault.name}: ${what}`
}

describe('fault matrix: every package × every fault through the real transport', () => {
  afterAll(() => {
    recordResults('faultMatrix', {
      packages: PACKAGES.map((p) => p.name),
      faults: FAULTS.map((f) => f.name),
      operationsPerPackage: { lookup: 'retry-safe', write: 'not retry-safe' },
      cells: CELLS.length,
      cellsSurvived: survived.length,
      survived,
    })
  })

  it.each(CELLS.map((cell) => [label(cell), cell] as const))('%s', async (_name, cell) => {
    const { pkg, fault, operation } = cell
    const expected = expectedOf(cell)
    const target = await serve(fault)
    const clock: TestClock = createTestClock()
    const client = pkg.open(target.url, {
      timeout: TIMEOUT_MS,
      totalTimeout: TOTAL_TIMEOUT_MS,
      maxRetries: MAX_RETRIES,
      maxResponseBytes: SIZE_CAP,
      clock,
      random: () => 0.5,
      ...fault.options,
    })
    try {
      if (fault.prime) await target.prime(client.lookup)
      const call = operation === 'lookup' ? client.lookup : client.write
      const started = performance.now()
      const startedOnClock = clock.now()
      const result = await outcome(call())
      const elapsed = performance.now() - started

      // The deadline: wall clock within the configured budget (plus slack), and the injected clock
      // (which only backoff moves) within the total deadline.
      expect(elapsed).toBeLessThan(fault.deadlineMs + WALL_SLACK_MS)
      expect(clock.now() - startedOnClock).toBeLessThanOrEqual(TOTAL_TIMEOUT_MS)
      expect(target.received()).toBe(expected.received)

      if (expected.kind === 'success') {
        expect(result.error).toBeUndefined()
        survived.push(`${pkg.name} | ${fault.name} | ${operation}`)
        return
      }
      const error = result.error
      expect(error).toBeDefined()
      expect(error).toMatchObject({ requestSent: expected.requestSent, attempts: expected.attempts })
      // Every error of a write that may have acted says so; a lookup's never does (it moves no money).
      expect(error).toMatchObject({ outcomeUnknown: operation === 'write' && expected.requestSent })
      switch (expected.kind) {
        case 'connection':
          expect(error).toBeInstanceOf(ConnectionError)
          expect(error).not.toBeInstanceOf(TimeoutError)
          expect(error).not.toBeInstanceOf(pkg.apiError)
          break
        case 'timeout':
          expect(error).toBeInstanceOf(TimeoutError)
          expect(error).toMatchObject({ phase: expected.phase })
          break
        case 'too-large':
          expect(error).toBeInstanceOf(ResponseTooLargeError)
          expect(error).toMatchObject({ limitBytes: SIZE_CAP, status: 200 })
          break
        case 'api':
          expect(error).toBeInstanceOf(pkg.apiError)
          expect(error).toMatchObject({ status: expected.status })
          break
        case 'unreadable':
          expect(error).toBeInstanceOf(pkg.apiError)
          expect(error).toMatchObject({ status: 200, reason: pkg.unreadableReason })
          break
      }
      if (expected.sleeps) expect(clock.sleeps).toEqual(expected.sleeps)

      // A write's error carries the key it was sent with, so the caller can reconcile.
      if (operation === 'write' && pkg.writeKeyOf && pkg.wireKeyOf) {
        const key = pkg.writeKeyOf(error)
        expect(key).toMatch(/^[0-9a-f-]{36}$/)
        for (const request of target.requests()) expect(pkg.wireKeyOf(request)).toBe(key)
      }
      survived.push(`${pkg.name} | ${fault.name} | ${operation}`)
    } finally {
      await client.close()
      await target.close()
    }
  })
})
