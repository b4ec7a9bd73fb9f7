/**
 * Going live's alert on refused callbacks, as running code: `onRefused` hears every delivery the
 * inbox refused; a `body_already_parsed` pages at once (a deploy broke the route: every callback is
 * refused until it is fixed), and `hash_mismatch` pages when several arrive within a minute (a
 * password rotation gone wrong, or forged callbacks). Each refusal is also a warn line in your logs.
 *
 * Run: npx tsx examples/card-gateway/callback-alerts.ts (against the embedded simulator)
 */
import { type CallbackRefusal, CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator } from '@paywire/card-gateway/testing'
import { expectThat, runIfMain, show } from '../shared/run.js'

/** Pages someone (your incident tool); here it keeps the pages for the check below. */
type Page = (name: string, fields: Record<string, string>) => void

/** The alert rule: what to do with each refusal. */
export function refusalAlerts(page: Page, { burst = 5, windowMs = 60_000 } = {}) {
  const mismatches: number[] = []
  return (refusal: CallbackRefusal): void => {
    if (refusal.reason === 'body_already_parsed') {
      page('paywire callback route broken', { reason: refusal.reason })
      return
    }
    if (refusal.reason !== 'hash_mismatch') return
    const now = Date.now()
    mismatches.push(now)
    while (mismatches.length > 0 && (mismatches[0] as number) < now - windowMs) mismatches.shift()
    if (mismatches.length === burst) {
      page('paywire callbacks refused: hash_mismatch', { count: String(burst), order: refusal.claimed.order ?? '' })
    }
  }
}

export async function main(): Promise<void> {
  const sim = await startCardGatewaySimulator()
  const gw = new CardGateway(sim.clientOptions)
  const pages: string[] = []
  const handler = gw.callbacks.handler({
    onEvent: () => {},
    onRefused: refusalAlerts((name) => pages.push(name), { burst: 3 }),
    recoverEveryMs: 0,
  })
  try {
    const body = sim.simulator.signCallback({
      id: 'pay-9',
      order_number: 'order-9',
      order_amount: '10.00',
      order_currency: 'USD',
      order_description: 'Filters',
      type: 'sale',
      status: 'success',
    })
    expectThat((await handler.handle(body)).status === 200, 'a signed callback is answered 200')
    for (const amount of ['1.00', '2.00']) await handler.handle(body.replace('10.00', amount))
    expectThat(pages.length === 0, 'two hash_mismatch refusals page no one')
    await handler.handle(body.replace('10.00', '3.00'))
    show('pages after a third forged body', pages)
    expectThat(pages.join() === 'paywire callbacks refused: hash_mismatch', 'the third within the window pages')
    await handler.handle(Object.fromEntries(new URLSearchParams(body)) as unknown as string)
    expectThat(pages.at(-1) === 'paywire callback route broken', 'a body already parsed pages at once')
  } finally {
    await handler.close()
    await gw.close()
    await sim.close()
  }
}

runIfMain(import.meta.url, main)
