/**
 * A merchant's first hour, as a program: what check-packages.mjs compiles (a default `tsc --init`
 * NodeNext config, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess) and runs in a
 * project outside the repository that installed the packed tarballs. It talks to the simulators
 * the packages ship (`./testing`) through public exports only, prints one line per step and exits
 * non-zero on the first failure of each flow.
 *
 * Card: purchase (req_token) → the payer pays → the sale callback, received on an HTTP endpoint and
 * verified over its raw body → status lookups → capture if pending → credit with the card_token of
 * a real answer → the refund callback. Remittance: beneficiary → mobile transfer → confirm → status.
 * Bill payment: product → pay with an idempotency key → read the payment back.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { BillPayment } from '@paywire/bill-payment'
import { startBillPaymentSimulator } from '@paywire/bill-payment/testing'
import {
  type CallbackEvent,
  CardGateway,
  formatAmount,
  isFinal,
  SignatureVerificationError,
} from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import { Remittance } from '@paywire/remittance'
import { startRemittanceSimulator } from '@paywire/remittance/testing'
import { z } from 'zod'

class StepFailed extends Error {}

/** Runs one step and prints `ok <label>: <what came back>`, or `FAIL <label>: <why>` and stops the flow. */
async function step<T>(label: string, run: () => Promise<T> | T, describe: (value: T) => string): Promise<T> {
  let value: T
  try {
    value = await run()
  } catch (error) {
    const why = error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error)
    console.log(`  FAIL ${label}: ${why}`)
    throw new StepFailed(label)
  }
  console.log(`  ok   ${label}: ${describe(value)}`)
  return value
}

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(what)
}

// ── the merchant's callback endpoint ──────────────────────────────────────────────────────────

async function readRawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** node:http endpoint that verifies each callback over its raw body and keeps the verified events. */
async function callbackEndpoint(gw: CardGateway) {
  const events: CallbackEvent[] = []
  const server = createServer((req, res) => {
    readRawBody(req)
      .then((rawBody) => {
        events.push(gw.callbacks.verify(rawBody))
        res.writeHead(200, { 'content-type': 'text/plain' }).end('OK')
      })
      .catch((error: unknown) => {
        res.writeHead(error instanceof SignatureVerificationError ? 400 : 500).end()
      })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callbacks/card`,
    events,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Stands in for the gateway: POSTs a signed callback body, as delivered, to the merchant's endpoint. */
async function deliver(url: string, body: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  })
  return response.status
}

// ── the three flows ───────────────────────────────────────────────────────────────────────────

async function cardFlow(): Promise<void> {
  const sim = await startCardGatewaySimulator()
  const gw = new CardGateway(sim.clientOptions)
  const endpoint = await callbackEndpoint(gw)
  try {
    const order_id = `order-${randomUUID().slice(0, 8)}`
    const session = await step(
      'card: checkout.purchase (req_token: true)',
      () =>
        gw.checkout.purchase({
          order: { number: order_id, amount: '25.00', currency: 'USD', description: 'Espresso machine' },
          success_url: 'https://shop.example/paid',
          cancel_url: 'https://shop.example/cancelled',
          req_token: true,
        }),
      (result) => `send the payer to ${result.redirect_url}`,
    )

    const sent = sim.simulator.callbacks.length
    await step(
      'card: the payer pays on the hosted page (simulator, test card 01/2038)',
      () => {
        sim.simulator.pay(order_id, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
        return session.redirect_url
      },
      () => 'authorised',
    )

    const sale = await step(
      'card: sale callback POSTed to our endpoint, gw.callbacks.verify(rawBody)',
      async () => {
        const bodies = sim.simulator.callbacks.slice(sent)
        for (const body of bodies)
          expect((await deliver(endpoint.url, body)) === 200, 'our endpoint refused a callback')
        const event = endpoint.events.find((e) => e.type === 'sale' && e.order_number === order_id)
        if (!event) throw new Error(`no sale callback for ${order_id} among ${bodies.length} delivered`)
        expect(event.status === 'success', `sale callback status ${event.status}`)
        expect((await deliver(endpoint.url, `${bodies[0]}0`)) === 400, 'a tampered callback was accepted')
        return event
      },
      (event) =>
        `${event.type}/${event.status}, payment ${event.id}, final: ${isFinal(event)}, card_token: ${event.card_token ?? 'none'}`,
    )

    const status = await step(
      'card: checkout.status({ order_id })',
      async () => {
        const result = await gw.checkout.status({ order_id })
        expect(result.status === 'pending', `expected an authorised (pending) payment, got ${result.status}`)
        return result
      },
      (result) => `status ${result.status}, payment ${result.payment_id}, card_token: ${result.card_token ?? 'none'}`,
    )

    const trans_id = await step(
      'card: s2s.getTransStatusByOrder({ order_id })',
      async () => {
        const result = await gw.s2s.getTransStatusByOrder({ order_id })
        if (!result.trans_id) throw new Error(`no trans_id for ${order_id} (status ${result.status})`)
        return result.trans_id
      },
      (id) => `trans_id ${id}`,
    )

    await step(
      'card: s2s.captureIfPending({ trans_id })',
      async () => {
        const outcome = await gw.s2s.captureIfPending({ trans_id })
        if (!outcome.captured) throw new Error(`nothing captured: status ${outcome.status}`)
        return outcome
      },
      (outcome) => (outcome.captured ? `captured, result ${outcome.capture.result}` : 'not captured'),
    )

    const refundsBefore = sim.simulator.callbacks.length
    await step(
      'card: checkout.credit with the card_token of the status answer',
      async () => {
        // The status answer's token: the callback carries one too, but outside the fields it signs.
        const card_token = status.card_token
        if (card_token == null) throw new Error('no card_token in the checkout.status answer')
        expect(sale.card_token === card_token, 'the sale callback and the status answer disagree on card_token')
        const result = await gw.checkout.credit({
          order_id: `refund-${randomUUID().slice(0, 8)}`,
          order_amount: formatAmount(500, 'USD'),
          order_currency: 'USD',
          order_description: 'Partial refund: damaged box',
          card_token,
          name: 'Ada Lovelace',
        })
        expect(result.result === 'SUCCESS', `credit answered ${result.result}`)
        return result
      },
      (result) => `result ${result.result}, payment ${result.payment_id}`,
    )

    await step(
      'card: refund callback verified',
      async () => {
        for (const body of sim.simulator.callbacks.slice(refundsBefore)) await deliver(endpoint.url, body)
        const refund = endpoint.events.find((e) => e.type === 'refund' && e.order_number === order_id)
        if (!refund) throw new Error('no refund callback')
        return refund
      },
      (event) => `${event.type}/${event.status}, order status ${event.order_status}`,
    )
  } finally {
    await endpoint.close()
    await gw.close()
    await sim.close()
  }
}

/**
 * An id from a typed answer: the spec shows no success bodies, so every field is optional (and may be
 * a string or a number); a missing one is a failure of the step, not a crash later.
 */
function idFrom(value: string | number | null | undefined, what: string): string {
  if (value === undefined || value === null || value === '') throw new Error(`the answer has no ${what}`)
  return String(value)
}

async function remittanceFlow(): Promise<void> {
  const sim = await startRemittanceSimulator()
  const remit = new Remittance(sim.clientOptions)
  try {
    const beneficiaryId = await step(
      'remittance: beneficiaries.create',
      async () => {
        const created = await remit.beneficiaries.create({
          firstName: 'Kwame',
          lastName: 'Mensah',
          telephone: '+233201234567',
          mobile: '+233201234567',
          country: 'GH',
          nationality: 'GH',
          city: 'Accra',
          address1: '12 Independence Ave',
        })
        return idFrom(created?.beneficiaryId, 'beneficiaryId')
      },
      (id) => `beneficiaryId ${id}`,
    )

    const agentTransactionRef = randomUUID() // the idempotency key: stored with the order before calling
    const transactionId = await step(
      'remittance: transactions.mobileTransfer',
      async () => {
        const transfer = await remit.transactions.mobileTransfer({
          remitterId: 'REM-0001',
          beneficiaryId,
          destinationCountry: 'GH',
          destinationCurrency: 'GHS',
          sourceCurrency: 'SLE',
          purpose: 'Family support',
          sourceOfIncome: 'Salary',
          amountType: 'SOURCE',
          amountSLE: 1500.5,
          agentTransactionRef,
          beneficiaryMobileTransferNumber: '+233201234567',
          beneficiaryMobileTransferNetworkId: 'MTN-GH',
          beneficiaryMobileTransferNetworkCreditTypeId: 'MTN-GH-WALLET',
        })
        return idFrom(transfer?.transactionId, 'transactionId')
      },
      (id) => `transactionId ${id} (agentTransactionRef ${agentTransactionRef})`,
    )

    const referenceNumber = await step(
      'remittance: transactions.confirm',
      async () => idFrom((await remit.transactions.confirm(transactionId))?.referenceNumber, 'referenceNumber'),
      (reference) => `referenceNumber ${reference}`,
    )

    await step(
      'remittance: lookup.transactionStatus(referenceNumber)',
      async () => idFrom((await remit.lookup.transactionStatus(referenceNumber))?.status, 'status'),
      (status) => `status ${status}`,
    )
  } finally {
    await remit.close()
    await sim.close()
  }
}

// A product's fields are the account's own: narrow them with a zod schema of what yours returns.
const Product = z.looseObject({ id: z.string(), name: z.string() })

async function billPaymentFlow(): Promise<void> {
  const sim = await startBillPaymentSimulator()
  const bills = new BillPayment(sim.clientOptions)
  try {
    const product = await step(
      'bill payment: catalog.get("EDSA-PREPAID") with a zod schema',
      () => bills.catalog.get('EDSA-PREPAID', { schema: Product }),
      (result) => `${result.id}: ${result.name}`,
    )

    const idempotencyKey = randomUUID() // kept with the order: a lost answer is retried with the same key
    const transReference = await step(
      'bill payment: transactions.execute (Idempotency-Key)',
      async () => {
        const { data, response } = await bills.transactions
          .execute({ productId: product.id, amount: 50, customerReference: 'METER-0042' }, { idempotencyKey })
          .withResponse()
        expect(response.idempotencyKey === idempotencyKey, 'the key sent is not the key chosen')
        return idFrom(data?.transReference, 'transReference')
      },
      (reference) => `transReference ${reference}`,
    )

    await step(
      'bill payment: transactions.get(transReference)',
      async () => idFrom((await bills.transactions.get(transReference))?.status, 'status'),
      (status) => `status ${status}`,
    )
  } finally {
    await bills.close()
    await sim.close()
  }
}

let failed = 0
for (const [name, flow] of [
  ['card gateway', cardFlow],
  ['remittance', remittanceFlow],
  ['bill payment', billPaymentFlow],
] as const) {
  try {
    await flow()
  } catch (error) {
    failed++
    if (!(error instanceof StepFailed)) console.log(`  FAIL ${name}: ${error instanceof Error ? error.message : error}`)
  }
}
console.log(
  failed ? `merchant flow: ${failed} of 3 flows failed` : 'merchant flow: card, remittance and bill payment passed',
)
process.exitCode = failed ? 1 : 0
