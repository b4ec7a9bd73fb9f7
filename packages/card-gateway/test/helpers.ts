/** Per-test setup: a simulator on loopback and a client talking to it through the real undici transport. */

import { type FaultBehaviour, rejection, startFaultServer } from '@paywire/core/testing'
import { expect, onTestFinished } from 'vitest'
import { CardGateway, CardGatewayError, type CardGatewayOptions } from '../src/index.js'
import {
  type CardGatewaySimulatorOptions,
  SIMULATOR_CREDENTIALS,
  startCardGatewaySimulator,
  TEST_CARDS,
} from '../src/testing/index.js'

export const PASSWORD = SIMULATOR_CREDENTIALS.password

export async function setup(options: { sim?: CardGatewaySimulatorOptions; client?: Partial<CardGatewayOptions> } = {}) {
  const started = await startCardGatewaySimulator(options.sim)
  const gw = new CardGateway({
    checkoutUrl: started.url,
    s2sUrl: started.url,
    merchantKey: SIMULATOR_CREDENTIALS.merchantKey,
    clientKey: SIMULATOR_CREDENTIALS.clientKey,
    password: SIMULATOR_CREDENTIALS.password,
    environment: 'sandbox',
    ...options.client,
  })
  onTestFinished(async () => {
    await gw.close()
    await started.close()
  })
  return { gw, ...started }
}

export type Setup = Awaited<ReturnType<typeof setup>>

/**
 * Another client of the same simulator and merchant account, closed after the test: its first call
 * goes on a new connection, so an error answer is read as the call's own (a CAPTURE's or VOID's
 * error on a kept-alive connection is checked against the payment's state first: docs/reliability.md).
 */
export function secondClient(ctx: Setup, options: Partial<CardGatewayOptions> = {}): CardGateway {
  const gw = new CardGateway({
    checkoutUrl: ctx.url,
    s2sUrl: ctx.url,
    merchantKey: SIMULATOR_CREDENTIALS.merchantKey,
    clientKey: SIMULATOR_CREDENTIALS.clientKey,
    password: SIMULATOR_CREDENTIALS.password,
    environment: 'sandbox',
    ...options,
  })
  onTestFinished(() => gw.close())
  return gw
}

let counter = 0
/** A fresh order number per call, so tests never share dedup state. */
export function orderId(prefix = 'order'): string {
  counter += 1
  return `${prefix}-${process.pid}-${counter}`
}

/** Purchase through the client, then the payer pays with a test card on the simulator. */
export async function paidPayment(
  ctx: Setup,
  options: { expiry?: string; capture?: boolean; recurring?: boolean; amount?: string; reqToken?: boolean } = {},
) {
  const number = orderId()
  await ctx.gw.checkout.purchase({
    order: { number, amount: options.amount ?? '10.00', currency: 'USD', description: 'Test order' },
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    ...(options.recurring ? { recurring_init: true } : {}),
    ...(options.reqToken ? { req_token: true } : {}),
  })
  return ctx.simulator.pay(number, {
    card: TEST_CARDS.number,
    expiry: options.expiry ?? TEST_CARDS.success,
    capture: options.capture ?? false,
  })
}

/** Decodes a recorded form body without normalising anything. */
export function form(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body))
}

export { rejection } from '@paywire/core/testing'

/** A Checkout credit (refund) a faulty gateway is sent: valid, so only the answer is under test. */
export const CREDIT = {
  order_id: 'ref-1',
  order_amount: '1.00',
  order_currency: 'USD',
  order_description: 'Refund',
  card_token: 'tok',
  name: 'A',
} as const

/** A client on a loopback server that answers with `behaviour` (a misbehaving gateway). */
export async function faultGateway(behaviour: FaultBehaviour) {
  const server = await startFaultServer(behaviour)
  const gw = new CardGateway({
    checkoutUrl: server.url,
    s2sUrl: server.url,
    merchantKey: SIMULATOR_CREDENTIALS.merchantKey,
    clientKey: SIMULATOR_CREDENTIALS.clientKey,
    password: SIMULATOR_CREDENTIALS.password,
  })
  onTestFinished(async () => {
    await gw.close()
    await server.close()
  })
  return { gw, server }
}

/** What `promise` rejected with, checked to be a `CardGatewayError`. */
export async function gatewayError(promise: PromiseLike<unknown>): Promise<CardGatewayError> {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(CardGatewayError)
  return error as CardGatewayError
}
