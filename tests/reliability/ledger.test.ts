/**
 * Side-effect ledger (issue 8): ≥ 1000 seeded random operations per simulator with injected faults
 * (a fault proxy in front of the simulator, plus each simulator's own fault knobs). Operations run
 * one at a time, so every ledger entry is attributed to the call that caused it. Afterwards: nothing
 * was executed twice, the SDK never re-sent a write that may have arrived, every ambiguous outcome
 * reached the caller as `ConnectionError { requestSent: true }` carrying its key, and every definite
 * error (an answered 4xx/5xx) left the ledger untouched (bill payment's injected "acted, then 503" aside,
 * which carries the `Idempotency-Key` and is replayed safely).
 */

import { BillPaymentError } from '@paywire/bill-payment'
import { startBillPaymentSimulator } from '@paywire/bill-payment/testing'
import { CardGatewayError } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import { ApiError, type ClientOptions, ConnectionError, PaywireError, TimeoutError } from '@paywire/core'
import { type AnyOperation, rowArguments } from '@paywire/core/engine'
import { createTestClock, HTML_ERROR_PAGE, refusedUrl } from '@paywire/core/testing'
import { startRemittanceSimulator } from '@paywire/remittance/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { BILL_KIT } from '../../packages/bill-payment/test/endpoint-kit.js'
import { CARD_KIT } from '../../packages/card-gateway/test/endpoint-kit.js'
import { REMITTANCE_KIT } from '../../packages/remittance/test/endpoint-kit.js'
import type { ChecklistClient, ChecklistPackage } from '../support/endpoint-checklist.js'
import { rowMethod } from '../support/row-method.js'
import { billPayment, cardGateway, idempotencyKeyOf, outcome, remittance } from './support/packages.js'
import { integer, mulberry32, pick, type Random, seedFromEnv, weighted } from './support/random.js'
import { recordResults } from './support/results.js'
import { type FaultProxy, OP_HEADER, type ProxyMode, startFaultProxy } from './support/servers.js'

const OPERATIONS = 1_000
const SEED = seedFromEnv(20_260_108)
/** Per-call timeout of calls whose answer the proxy withholds (kept short: each one costs real time). */
/** The remittance simulator's upstream-failure bodies: its ProblemDetails, a proxy's HTML page, none. */
const FAULT_BODIES = { problem: undefined, html: HTML_ERROR_PAGE, empty: '' } as const

const STALL_TIMEOUT_MS = 250
/** Generous for everything else: a slow answer on a loaded machine must not look like a fault. */
const CALL_TIMEOUT_MS = 10_000

type Mode = ProxyMode | 'refused'

/** One operation as the caller lived it. */
interface Op {
  readonly i: number
  readonly opId: string
  readonly kind: string
  /** Not retry-safe: the SDK must never send it twice. */
  readonly write: boolean
  readonly mode: Mode
  readonly native: string | undefined
  error: unknown
  /** Ledger entries this operation caused. */
  delta: number
}

/** The proxy fault of an operation's first attempt: 75 % clean, the rest spread over the fault kinds. */
function planMode(random: Random, refusable: boolean): Mode {
  if (random() < 0.75) return 'pass'
  return weighted(random, {
    'drop-after-forward': 30,
    'reset-before-forward': 22,
    unavailable: 20,
    'redirect-after-forward': 8,
    'continue-after-forward': 8,
    'stall-after-forward': 6,
    refused: refusable ? 10 : 0,
  })
}

/** Faults after which the caller cannot know whether a write acted. */
const AMBIGUOUS_MODES = new Set<Mode>([
  'drop-after-forward',
  'reset-before-forward',
  'stall-after-forward',
  'redirect-after-forward',
  'continue-after-forward',
])

/** A write whose first attempt met one of those faults. */
const isAmbiguousWrite = (op: Op) => op.write && AMBIGUOUS_MODES.has(op.mode)

/**
 * A purchase (dedup-window operation) answered with a redirect or an interim 100 Continue after the
 * service acted: never retried, whatever the window allows, so it ends as an unknown outcome too.
 */
const NOT_RETRIED_IN_WINDOW = new Set<Mode>(['redirect-after-forward', 'continue-after-forward'])
const isAmbiguousCardOp = (op: Op) =>
  isAmbiguousWrite(op) ||
  ((op.kind === 'purchase' || op.kind === 'repeatPurchase') && NOT_RETRIED_IN_WINDOW.has(op.mode))

function callOptions(op: Op): { headers: Record<string, string>; timeout: number } {
  return {
    headers: { [OP_HEADER]: op.opId },
    timeout: op.mode === 'stall-after-forward' ? STALL_TIMEOUT_MS : CALL_TIMEOUT_MS,
  }
}

function clientOptions(): ClientOptions {
  return { maxRetries: 2, totalTimeout: 60_000, clock: createTestClock(), random: () => 0.5 }
}

function countBy<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, number> {
  const counts = new Map<string, number>()
  for (const item of items) {
    const k = key(item)
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  return counts
}

function maxCount(counts: Map<string, number>): number {
  return Math.max(0, ...counts.values())
}

/** The operations whose unbelieved answer on a kept-alive connection is settled at once (docs/reliability.md). */
const SETTLED_AT_ONCE = new Set(['capture', 'void', 's2s.capture', 's2s.void'])

/** The checks every package shares, over the operation log and the proxy log. */
function checkCommon(ops: readonly Op[], proxy: FaultProxy, isAmbiguous: (op: Op) => boolean) {
  const sent = countBy(proxy.log, (r) => r.opId)
  let ambiguous = 0
  for (const op of ops) {
    const error = op.error
    if (op.write) {
      // Never re-sent once it may have arrived.
      expect(sent.get(op.opId) ?? 0, `${op.kind} #${op.i} sent more than once`).toBeLessThanOrEqual(1)
    }
    if (op.mode === 'refused') {
      expect(error, `${op.kind} #${op.i} refused`).toBeInstanceOf(ConnectionError)
      expect(error).toMatchObject({ requestSent: false })
      expect(op.delta).toBe(0)
      continue
    }
    if (isAmbiguous(op)) {
      ambiguous += 1
      // A CAPTURE or VOID whose kept-alive connection failed or answered what is not believed (a
      // redirect) is settled at once by GET_TRANS_STATUS: it resolves when the payment shows the
      // state the call asked for, made by this call or an earlier one (the state refuses a second).
      if (error === undefined && SETTLED_AT_ONCE.has(op.kind)) {
        expect(op.delta, `${op.kind} #${op.i} resolved by its settle`).toBeLessThanOrEqual(1)
        continue
      }
      // Or the settle shows a state the call cannot act on (VOID for a capture): it did not act.
      if (error instanceof ConnectionError && !error.outcomeUnknown && SETTLED_AT_ONCE.has(op.kind)) {
        expect(op.delta, `${op.kind} #${op.i} settled as not applied`).toBe(0)
        continue
      }
      expect(error, `${op.kind} #${op.i} (${op.mode}) must report an unknown outcome`).toMatchObject({
        requestSent: true,
        outcomeUnknown: true,
      })
      // A redirect on a kept-alive connection is not believed as a CAPTURE's or VOID's answer (a ConnectionError).
      if (op.mode === 'redirect-after-forward' && !SETTLED_AT_ONCE.has(op.kind)) expect(error).toBeInstanceOf(ApiError)
      else if (op.mode === 'redirect-after-forward') expect(error).toBeInstanceOf(PaywireError)
      else expect(error).toBeInstanceOf(ConnectionError)
      if (op.mode === 'stall-after-forward') expect(error).toBeInstanceOf(TimeoutError)
    }
    // Something happened but the caller was told it failed: that must be flagged as unknown.
    if (op.delta > 0 && error !== undefined) {
      expect(error, `${op.kind} #${op.i} acted but reported a known outcome`).toMatchObject({ outcomeUnknown: true })
    }
    // A known outcome (a documented refusal, a 4xx) means nothing was done.
    if (error instanceof ApiError && !error.outcomeUnknown) expect(op.delta, `${op.kind} #${op.i}`).toBe(0)
  }
  return ambiguous
}

function figures(ops: readonly Op[], proxy: FaultProxy, ambiguous: number, ledgerEntries: number) {
  return {
    seed: SEED,
    operations: ops.length,
    writes: ops.filter((op) => op.write).length,
    requestsThroughProxy: proxy.log.length,
    faults: Object.fromEntries(countBy(ops, (op) => op.mode)),
    nativeFaults: Object.fromEntries(countBy(ops, (op) => op.native)),
    ambiguousOutcomes: ambiguous,
    errorsSeen: Object.fromEntries(
      countBy(ops, (op) => (op.error instanceof Error ? op.error.constructor.name : undefined)),
    ),
    ledgerEntries,
    duplicates: 0,
  }
}

const results: Record<string, unknown> = {}
afterAll(() => recordResults('ledger', { seed: SEED, packages: results }))

describe(`side-effect ledger (seed ${SEED}, ${OPERATIONS} operations per simulator)`, () => {
  it(`card gateway: ${OPERATIONS} random operations never charge, capture, void or refund twice (seed ${SEED})`, async () => {
    const random = mulberry32(SEED)
    // A simulator clock that never moves keeps every repeat inside the 15 s dedup window.
    const frozen = createTestClock()
    const started = await startCardGatewaySimulator({
      password: 'Card-Pw-9f4Q-zX7!-never-on-the-wire',
      merchantKey: 'rel-merchant-key',
      clientKey: 'rel-client-key',
      clock: frozen,
    })
    const plan = new Map<string, Mode>()
    const proxy = await startFaultProxy(started.url, (opId, attempt) =>
      attempt === 1 ? ((plan.get(opId) ?? 'pass') as ProxyMode) : 'pass',
    )
    const gw = cardGateway(proxy.url, clientOptions())
    const refused = cardGateway(await refusedUrl(), clientOptions())
    const sim = started.simulator
    const ops: Op[] = []
    const orders: string[] = []
    try {
      for (let i = 0; i < OPERATIONS; i++) {
        const payments = sim.payments
        const kind =
          orders.length === 0
            ? 'purchase'
            : weighted(random, {
                purchase: 20,
                repeatPurchase: 6,
                capture: 20,
                void: 12,
                creditVoid: 10,
                getTransStatus: 20,
                status: 12,
              })
        const write = kind === 'capture' || kind === 'void' || kind === 'creditVoid'
        const op: Op = {
          i,
          opId: `card-${i}`,
          kind,
          write,
          mode: planMode(random, write),
          native: undefined,
          error: undefined,
          delta: 0,
        }
        if (op.mode !== 'refused') plan.set(op.opId, op.mode as ProxyMode)
        const client = op.mode === 'refused' ? refused : gw
        const call = callOptions(op)
        const before = sim.ledger.length
        const trans = payments.length > 0 ? pick(random, payments).trans_id : 'none'
        const order = kind === 'purchase' ? `L${SEED}-${i}` : pick(random, orders.length > 0 ? orders : ['none'])
        const purchase = {
          order: { number: order, amount: '25.00', currency: 'USD', description: `ledger order ${order}` },
          success_url: 'https://shop.example/ok',
          cancel_url: 'https://shop.example/cancel',
        }
        const run: Record<string, () => Promise<unknown>> = {
          purchase: () => client.checkout.purchase(purchase, call),
          repeatPurchase: () => client.checkout.purchase(purchase, call),
          capture: () => client.s2s.capture({ trans_id: trans }, call),
          void: () => client.s2s.void({ trans_id: trans }, call),
          creditVoid: () => client.s2s.creditVoid({ trans_id: trans }, call),
          getTransStatus: () => client.s2s.getTransStatus({ trans_id: trans }, call),
          status: () => client.checkout.status({ order_id: order }, call),
        }
        op.error = (await outcome((run[kind] as () => Promise<unknown>)())).error
        op.delta = sim.ledger.length - before
        ops.push(op)
        // The payer completes the hosted page: the charge is the simulator's, not the SDK's.
        if (kind === 'purchase' && sim.payment(order)?.status === 'prepare') {
          orders.push(order)
          const expiry = weighted(random, { success: 60, captureFails: 15, decline: 15, none: 10 })
          if (expiry !== 'none') sim.pay(order, { card: TEST_CARDS.number, expiry: TEST_CARDS[expiry] })
        }
      }
      const ambiguous = checkCommon(ops, proxy, isAmbiguousCardOp)
      // Retry-safe calls (lookups, purchase inside the dedup window) rode out every other fault.
      for (const op of ops.filter((o) => !o.write && o.mode !== 'refused' && !isAmbiguousCardOp(o))) {
        if (op.error !== undefined) expect(op.error, `${op.kind} #${op.i}`).toBeInstanceOf(CardGatewayError)
        expect(op.error).not.toBeInstanceOf(ConnectionError)
      }

      const ledger = sim.ledger
      const per = (kind: string) =>
        countBy(
          ledger.filter((e) => e.kind === kind),
          (e) => e.trans_id,
        )
      expect(
        maxCount(
          countBy(
            ledger.filter((e) => e.kind === 'session'),
            (e) => e.order_id,
          ),
        ),
        'an order opened twice',
      ).toBeLessThanOrEqual(1)
      expect(maxCount(per('charge')), 'a payment charged twice').toBeLessThanOrEqual(1)
      expect(maxCount(per('capture')), 'a payment captured twice').toBeLessThanOrEqual(1)
      expect(maxCount(per('void')), 'a payment voided twice').toBeLessThanOrEqual(1)
      expect(maxCount(per('refund')), 'a payment refunded twice').toBeLessThanOrEqual(1)
      const settledOrVoided = countBy(
        ledger.filter((e) => e.kind === 'capture' || e.kind === 'void'),
        (e) => e.trans_id,
      )
      expect(maxCount(settledOrVoided), 'a payment both captured and voided').toBeLessThanOrEqual(1)
      expect(ledger.filter((e) => e.kind === 'capture').length).toBeGreaterThan(20)
      expect(ambiguous).toBeGreaterThan(10)
      results['card-gateway'] = figures(ops, proxy, ambiguous, ledger.length)
    } finally {
      await gw.close()
      await refused.close()
      await proxy.close()
      await started.close()
    }
  })

  it(`remittance: ${OPERATIONS} random operations never execute a transfer twice (seed ${SEED})`, async () => {
    const random = mulberry32(SEED ^ 0x0a11ce)
    const started = await startRemittanceSimulator({ apiKey: 'Remit-Key-2b8R-qW5-header-only' })
    const plan = new Map<string, Mode>()
    const proxy = await startFaultProxy(started.url, (opId, attempt) =>
      attempt === 1 ? ((plan.get(opId) ?? 'pass') as ProxyMode) : 'pass',
    )
    const client = remittance(proxy.url, { ...clientOptions(), serviceDedupsIdempotencyKey: true })
    const refused = remittance(await refusedUrl(), clientOptions())
    const sim = started.simulator
    const ops: Op[] = []
    const beneficiaries: string[] = []
    const known: string[] = []
    let reconciled = 0
    let resent = 0
    try {
      for (let n = 0; n < 4; n++) {
        const created = await client.beneficiaries.create({
          firstName: `Ama${n}`,
          lastName: 'Mensah',
          telephone: `23320000${n}`,
        })
        beneficiaries.push(String((created as Record<string, unknown>)['beneficiaryId']))
      }
      for (let i = 0; i < OPERATIONS; i++) {
        const kind = weighted(random, {
          mobileTransfer: 22,
          cashCollection: 18,
          confirm: 15,
          transactionStatus: 15,
          banks: 12,
          rates: 10,
          createBeneficiary: 8,
        })
        const write =
          kind === 'mobileTransfer' || kind === 'cashCollection' || kind === 'confirm' || kind === 'createBeneficiary'
        const mode = planMode(random, write)
        let native: string | undefined
        if (mode === 'pass' && random() < 0.1) native = 'upstream-502'
        const op: Op = { i, opId: `remit-${i}`, kind, write, mode, native, error: undefined, delta: 0 }
        if (mode !== 'refused') plan.set(op.opId, mode as ProxyMode)
        const c = mode === 'refused' ? refused : client
        const call = callOptions(op)
        const common = {
          remitterId: 'REM-1',
          beneficiaryId: pick(random, beneficiaries),
          amountSLE: integer(random, 10, 500),
          benefTransRef: `intent-${i}`,
        }
        const transferId = known.length > 0 ? pick(random, known) : 'TX-none'
        const paths: Record<string, string> = {
          mobileTransfer: '/api/transactions/mobile-transfer',
          cashCollection: '/api/transactions/cash-collection',
          confirm: '/api/transactions/confirm',
          transactionStatus: '/api/lookup/transaction/status',
          banks: '/api/lookup/banks',
          rates: '/api/lookup/rates',
          createBeneficiary: '/api/beneficiaries',
        }
        if (native)
          sim.failNext({
            path: paths[kind] as string,
            status: 502,
            body: FAULT_BODIES[pick(random, ['problem', 'html', 'empty'] as const)],
          })
        const mobile = {
          ...common,
          destinationCountry: 'GH',
          beneficiaryMobileTransferNumber: '233200000001',
          beneficiaryMobileTransferNetworkId: 'MTN-GH',
        }
        const cash = { ...common, destinationCountry: 'GH', collectionPointId: 'CP-GH-001' }
        const run: Record<string, () => Promise<unknown>> = {
          mobileTransfer: () => c.transactions.mobileTransfer(mobile, call),
          cashCollection: () => c.transactions.cashCollection(cash, call),
          confirm: () => c.transactions.confirm(transferId, call),
          transactionStatus: () => c.lookup.transactionStatus(pick(random, [...known, 'RN-none']), call),
          banks: () => c.lookup.banks(undefined, call),
          rates: () => c.lookup.rates({ sendingAmountSLE: 100, destinationCountry: 'GH' }, call),
          createBeneficiary: () =>
            c.beneficiaries.create({ firstName: `B${i}`, lastName: 'Kamara', telephone: `2327${i}` }, call),
        }
        const confirmedBefore = sim.ledger.filter((e) => e.referenceNumber !== undefined).length
        const before = sim.ledger.length
        const result = await outcome((run[kind] as () => Promise<unknown>)())
        op.error = result.error
        op.delta =
          sim.ledger.length -
          before +
          (sim.ledger.filter((e) => e.referenceNumber !== undefined).length - confirmedBefore)
        ops.push(op)
        const value = result.value as { transactionId?: string } | undefined
        if (value?.transactionId) known.push(value.transactionId)

        // A transfer whose outcome is unknown: reconcile with its key, resend only if it never happened.
        if (
          (kind === 'mobileTransfer' || kind === 'cashCollection') &&
          op.error instanceof ConnectionError &&
          op.error.requestSent
        ) {
          const ref = idempotencyKeyOf(op.error)
          expect(ref, `transfer #${i} lost its agentTransactionRef`).toMatch(
            /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
          )
          reconciled += 1
          // What the SDK advises, followed to the letter: the client is told the service deduplicates
          // agentTransactionRef (the simulator does), so a transfer the lookup cannot find is resent
          // with the same reference; without that option the advice is a lookup only.
          const settled = await client.reconcile(op.error)
          if (settled.outcome === 'applied') {
            known.push(String((settled.state as Record<string, unknown>)['transactionId']))
          } else {
            expect(settled.outcome).toBe('still_unknown')
            expect(settled.next).toMatch(/send the same transfer again with agentTransactionRef/)
            resent += 1
            // Either transfer takes the same body shape here; one signature for both.
            const send = client.transactions[kind].bind(client.transactions) as (body: object) => Promise<unknown>
            const again = await send({
              ...(kind === 'mobileTransfer' ? mobile : cash),
              agentTransactionRef: ref as string,
            })
            known.push(String((again as Record<string, unknown>)['transactionId']))
          }
        }
      }
      const ambiguous = checkCommon(ops, proxy, isAmbiguousWrite)
      for (const op of ops.filter(
        (o) => o.write && o.error instanceof ConnectionError && o.kind !== 'confirm' && o.kind !== 'createBeneficiary',
      )) {
        expect(idempotencyKeyOf(op.error), `${op.kind} #${op.i}`).toMatch(/^[0-9a-f-]{36}$/)
      }
      const ledger = sim.ledger
      expect(maxCount(countBy(ledger, (e) => e.agentTransactionRef)), 'an agentTransactionRef executed twice').toBe(1)
      expect(
        maxCount(countBy(ledger, (e) => String(e.body['benefTransRef']))),
        'a transfer intent executed twice',
      ).toBe(1)
      expect(maxCount(countBy(ledger, (e) => e.referenceNumber)), 'a transfer confirmed twice').toBeLessThanOrEqual(1)
      expect(ambiguous).toBeGreaterThan(10)
      results['remittance'] = {
        ...figures(ops, proxy, ambiguous, ledger.length),
        reconciled,
        resentAfterReconcile: resent,
      }
    } finally {
      await client.close()
      await refused.close()
      await proxy.close()
      await started.close()
    }
  })

  it(`bill payment: ${OPERATIONS} random operations never execute a payment twice (seed ${SEED})`, async () => {
    const random = mulberry32(SEED ^ 0xb111)
    const started = await startBillPaymentSimulator({
      clientId: 'rel-bill-client-id',
      clientSecret: 'Bill-Secret-7c1T-vN3-header-only',
    })
    const plan = new Map<string, Mode>()
    const proxy = await startFaultProxy(started.url, (opId, attempt) =>
      attempt === 1 ? ((plan.get(opId) ?? 'pass') as ProxyMode) : 'pass',
    )
    const client = billPayment(proxy.url, { ...clientOptions(), serviceDedupsIdempotencyKey: true })
    const refused = billPayment(await refusedUrl(), clientOptions())
    const sim = started.simulator
    const ops: Op[] = []
    let replays = 0
    try {
      for (let i = 0; i < OPERATIONS; i++) {
        const kind = weighted(random, {
          execute: 30,
          executeRetryWithSameKey: 10,
          get: 14,
          list: 10,
          filter: 10,
          catalogList: 10,
          catalogGet: 10,
          toggle: 6,
        })
        const write = kind === 'execute'
        const mode = planMode(random, true)
        let native: string | undefined
        if (mode === 'pass' && random() < 0.15) native = pick(random, ['before', 'after'] as const)
        const op: Op = { i, opId: `bill-${i}`, kind, write, mode, native, error: undefined, delta: 0 }
        if (mode !== 'refused') plan.set(op.opId, mode as ProxyMode)
        const c = mode === 'refused' ? refused : client
        const call = callOptions(op)
        if (native) sim.failNext({ status: pick(random, [500, 502, 503]), when: native as 'before' | 'after' })
        const product = pick(random, ['EDSA-PREPAID', 'AIRTIME-ORANGE', 'TV/PREMIUM'])
        const body = { productId: product, amount: integer(random, 50, 900), customerReference: `intent-${i}` }
        const refs = sim.transactions.map((t) => t.transReference)
        const run: Record<string, () => Promise<unknown>> = {
          execute: () => c.transactions.execute(body, call),
          executeRetryWithSameKey: () => c.transactions.execute(body, { ...call, retryWithSameKey: true }),
          get: () => c.transactions.get(refs.length > 0 ? pick(random, refs) : 'BP-none', call),
          list: () => c.transactions.list({ productId: product }, call),
          filter: () => c.transactions.filter({ customerReference: `intent-${integer(random, 0, i)}` }, call),
          catalogList: () => c.catalog.list(call),
          catalogGet: () => c.catalog.get(product, call),
          toggle: () =>
            random() < 0.5
              ? c.catalog.disable({ productId: 'AIRTIME-ORANGE' }, call)
              : c.catalog.enable({ productId: 'AIRTIME-ORANGE' }, call),
        }
        const before = sim.ledger.length
        op.error = (await outcome((run[kind] as () => Promise<unknown>)())).error
        op.delta = sim.ledger.length - before
        ops.push(op)

        const isExecute = kind === 'execute' || kind === 'executeRetryWithSameKey'
        if (isExecute && op.error !== undefined && op.mode !== 'refused') {
          // Every error of a payment carries its key; an unknown outcome is replayed with that key.
          const key = idempotencyKeyOf(op.error)
          expect(key, `execute #${i} lost its Idempotency-Key`).toMatch(/^[0-9a-f-]{36}$/)
          for (const r of proxy.log.filter((x) => x.opId === op.opId)) expect(r.idempotencyKey).toBe(key)
          if ((op.error as BillPaymentError).outcomeUnknown) {
            // The SDK's advice, followed: the client is told the service deduplicates the key (the
            // simulator does), so a payment its lookup cannot find is replayed with the same key.
            const settled = await client.reconcile(op.error as BillPaymentError)
            if (settled.outcome === 'applied') continue
            expect(settled.next).toMatch(/send the same payment again with { idempotencyKey/)
            replays += 1
            const again = await outcome(client.transactions.execute(body, { idempotencyKey: key as string }))
            if (again.error === undefined) expect((again.value as { idempotencyKey: string }).idempotencyKey).toBe(key)
            else expect(again.error).toMatchObject({ name: 'BillPaymentError', idempotencyKey: key })
          }
        }
      }
      const ambiguous = checkCommon(ops, proxy, isAmbiguousWrite)
      // An execute that acted and then answered an error (injected "after") still carried its key.
      for (const op of ops.filter((o) => o.native === 'after' && o.delta > 0 && o.error !== undefined)) {
        expect(op.error).toBeInstanceOf(BillPaymentError)
        expect(idempotencyKeyOf(op.error)).toBe(
          sim.ledger.find((e) => e.idempotencyKey === idempotencyKeyOf(op.error))?.idempotencyKey,
        )
      }
      const ledger = sim.ledger
      const byIntent = countBy(sim.transactions, (t) => String(t['customerReference']))
      expect(maxCount(countBy(ledger, (e) => e.idempotencyKey)), 'an Idempotency-Key executed twice').toBe(1)
      expect(maxCount(byIntent), 'a payment intent executed twice').toBe(1)
      expect(ambiguous).toBeGreaterThan(10)
      results['bill-payment'] = { ...figures(ops, proxy, ambiguous, ledger.length), replayedWithSameKey: replays }
    } finally {
      await client.close()
      await refused.close()
      await proxy.close()
      await started.close()
    }
  })
})

/** Random operations per package over every row of its table, each with its example's arguments. */
const ROW_OPERATIONS = 240

type RowKit = ChecklistPackage<ChecklistClient & object, unknown>

/**
 * Every row of the three tables under faults, picked at random, each called with its example's
 * arguments (made on the simulator directly) through the fault proxy. What the row declares is what
 * is checked: a row that is not retry-safe is never sent twice, and a fault after it may have acted
 * reaches the caller as an unknown outcome keyed by a kind the row names; no call causes two effects
 * in the simulator's ledger; a definite refusal causes none.
 */
/**
 * A row's retry kind as the ledger's clients have it: a row whose policy depends on the client's
 * options (RECURRING_SALE, deduplicated only by opt-in) is read with none set, as these clients are
 * made. (Read as `row.retry.kind`, such a row had no kind, and was never treated as a write.)
 */
function retryKindOf(row: { readonly retry: unknown }): string | undefined {
  const policy = typeof row.retry === 'function' ? row.retry({ rules: {} }) : row.retry
  return (policy as { kind?: string } | undefined)?.kind
}

describe(`every row of the three tables under faults (seed ${SEED}, ${ROW_OPERATIONS} operations per package)`, () => {
  const kits = [CARD_KIT, REMITTANCE_KIT, BILL_KIT] as unknown as RowKit[]
  it.each(kits.map((kit) => [kit.name, kit] as const))('%s', async (name, kit) => {
    const random = mulberry32(SEED ^ name.length)
    const rows = Object.entries(kit.endpoints).flatMap(([group, table]) =>
      Object.entries(table).map(([method, row]) => ({ group, method, row })),
    )
    const simulator = await kit.startSimulator()
    const plan = new Map<string, ProxyMode>()
    const proxy = await startFaultProxy(simulator.url, (opId, attempt) =>
      attempt === 1 ? (plan.get(opId) ?? 'pass') : 'pass',
    )
    const direct = kit.client(simulator, simulator.url)
    const client = kit.client(simulator, proxy.url, clientOptions())
    const ops: Op[] = []
    const reached = new Set<string>()
    try {
      for (let i = 0; i < ROW_OPERATIONS; i++) {
        const { group, method, row } = pick(random, rows)
        const args = (await kit.examples[group]?.[method]?.(kit.setup(direct, simulator))) as unknown[]
        const kind = retryKindOf(row)
        const op: Op = {
          i,
          opId: `${name}-rows-${i}`,
          kind: row.name,
          write: kind === 'unsent-only',
          mode: planMode(random, false),
          native: undefined,
          error: undefined,
          delta: 0,
        }
        plan.set(op.opId, op.mode as ProxyMode)
        const call = callOptions(op)
        // The row's arguments in the places `rowArguments` gives (a path value and a body both), then the
        // options; an argument the example leaves out (an optional query) is `undefined` in its place.
        const places = rowArguments(row as AnyOperation).length
        const given = Array.from({ length: places }, (_, index) => args[index])
        const fn = rowMethod(client, group, method)
        const before = kit.effects(simulator)
        op.error = (await outcome(fn(...given, call))).error
        op.delta = kit.effects(simulator) - before
        ops.push(op)
        reached.add(row.name)
        expect(op.delta, `${row.name} #${i} caused ${op.delta} effects`).toBeLessThanOrEqual(1)
        // (A CAPTURE or VOID settled at once has no error to carry it.)
        if (op.error !== undefined && op.write && AMBIGUOUS_MODES.has(op.mode) && row.reconcile) {
          const key = (op.error as { reconciliation?: { key: string } }).reconciliation?.key
          expect(row.reconcile.keys, `${row.name} #${i} carried the key ${key}`).toContain(key)
        }
      }
      const isAmbiguous = (op: Op) => {
        const found = rows.find((r) => r.row.name === op.kind)
        const kind = found && retryKindOf(found.row)
        return (op.write && AMBIGUOUS_MODES.has(op.mode)) || (kind === 'window' && NOT_RETRIED_IN_WINDOW.has(op.mode))
      }
      const ambiguous = checkCommon(ops, proxy, isAmbiguous)
      expect([...reached].sort(), 'every row was called').toEqual(rows.map((r) => r.row.name).sort())
      results[`${name} (rows)`] = figures(ops, proxy, ambiguous, kit.effects(simulator))
    } finally {
      await client.close()
      await direct.close()
      await proxy.close()
      await simulator.close()
    }
  })
})
