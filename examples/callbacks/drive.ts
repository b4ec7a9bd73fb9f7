/**
 * What every framework recipe in this folder is run through, in CI and by `pnpm demo`: the card
 * simulator (S2S callbacks in the platform's shape) signs real callbacks, and the recipe must answer
 * each as the inbox does. A sale and a capture are answered `200 OK` and reach `onEvent`; a body some
 * code read first is answered `500 body_already_parsed` (the gateway delivers it again once the route
 * is fixed); a tampered body is answered `400 hash_mismatch` and heard by `onRefused`.
 */
import { type CallbackEvent, type CallbackHandler, type CallbackRefusal, CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import { expectThat, show } from '../shared/run.js'

/** One delivery's answer. */
export interface Answer {
  readonly status: number
  readonly body: string
}

/** A recipe under test: how a raw body reaches it, and how it is shut down. */
export interface Mounted {
  /** Delivers `body` as the gateway does; with `readFirst`, some code reads the body before the handler. */
  deliver(body: string, options?: { readFirst?: boolean }): Promise<Answer>
  close?(): Promise<void>
}

/** Runs `mount` (a recipe) against the simulator; fails unless every answer is the inbox's. */
export async function driveRecipe(name: string, mount: (handler: CallbackHandler) => Promise<Mounted>): Promise<void> {
  const sim = await startCardGatewaySimulator({ s2sCallbackShape: 's2s' })
  const gw = new CardGateway(sim.clientOptions)
  const runs: CallbackEvent[] = []
  const refusals: CallbackRefusal[] = []
  const handler = gw.callbacks.handler({
    onEvent: (event) => {
      runs.push(event)
    },
    onRefused: (refusal) => refusals.push(refusal),
    recoverEveryMs: 0,
  })
  const mounted = await mount(handler)
  try {
    const order = `${name}-${Date.now()}`
    await gw.checkout.purchase({
      order: { number: order, amount: '12.00', currency: 'USD', description: 'Recipe check' },
      success_url: 'https://shop.example/paid',
      cancel_url: 'https://shop.example/cancelled',
    })
    sim.simulator.pay(order, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    const sale = sim.simulator.callbacks.at(-1) ?? ''
    const trans_id = (await gw.s2s.getTransStatusByOrder({ order_id: order })).trans_id ?? ''
    await gw.s2s.capture({ trans_id })
    const capture = sim.simulator.callbacks.at(-1) ?? ''

    const answers = {
      sale: await mounted.deliver(sale),
      capture: await mounted.deliver(capture),
      readFirst: await mounted.deliver(sale, { readFirst: true }),
      tampered: await mounted.deliver(sale.replace('order_amount=12.00', 'order_amount=1.00')),
    }
    for (const [what, answer] of Object.entries(answers)) show(`${name}: ${what} →`, `${answer.status} ${answer.body}`)
    expectThat(
      answers.sale.status === 200 && answers.sale.body === 'OK',
      `${name}: a signed sale callback is answered 200 OK`,
    )
    expectThat(answers.capture.status === 200, `${name}: an S2S capture callback is answered 200`)
    expectThat(
      answers.readFirst.status === 500 && answers.readFirst.body.startsWith('body_already_parsed'),
      `${name}: a body read first is answered 500 body_already_parsed`,
    )
    expectThat(
      answers.tampered.status === 400 && answers.tampered.body === 'hash_mismatch',
      `${name}: a tampered body is answered 400 hash_mismatch`,
    )
    await handler.drain()
    show(
      `${name}: onEvent ran for`,
      runs.map((e) => `${e.type ?? e.action}/${e.status}${e.confirmedBy ? ' (confirmed by lookup)' : ''}`),
    )
    expectThat(
      runs.some((e) => e.type === 'sale') && runs.some((e) => e.action === 'CAPTURE' && e.confirmedBy === 'lookup'),
      `${name}: onEvent ran for the sale and for the capture, confirmed by a lookup`,
    )
    expectThat(
      refusals.map((r) => r.reason).join() === 'body_already_parsed,hash_mismatch',
      `${name}: onRefused heard the body read first and the tampered one`,
    )
  } finally {
    await mounted.close?.()
    await handler.close()
    await gw.close()
    await sim.close()
  }
}

/** A form POST to `url`, answered as text. */
export async function post(url: string, body: string): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  })
  return { status: res.status, body: await res.text() }
}

/** A Fetch API `Request` as the gateway sends it; with `readFirst` its body has been read already. */
export async function formRequest(body: string, readFirst = false): Promise<Request> {
  const request = new Request('https://shop.example/callbacks/card', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  })
  if (readFirst) await request.formData() // what a body-reading middleware does
  return request
}

/** A `Response`'s status and text. */
export async function answerOf(response: Response): Promise<Answer> {
  return { status: response.status, body: await response.text() }
}
