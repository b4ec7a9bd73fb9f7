/**
 * Card callbacks in Hono on Bun: the same mount as on Node, `(c) => handler.fetch(c.req.raw)`, and
 * `Bun.serve` in place of @hono/node-server. CI runs this file on Bun from the packed tarballs
 * (scripts/check-runtimes.mjs): a signed callback from `paywire sim`, a body read first, a tampered one.
 *
 * Run: PAYWIRE_CARD_* set, then bun run examples/callbacks/hono-bun.ts
 */
import { type CallbackHandler, CardGateway, MemoryClaimStore } from '@paywire/card-gateway'
import { Hono } from 'hono'

/** What this file uses of Bun's global (declared here: the examples type-check under Node's types). */
declare const Bun: { serve(options: { port: number; fetch(request: Request): Promise<Response> | Response }): unknown }

/** The mount: `(c) => handler.fetch(c.req.raw)`, as on Node. */
export function callbackApp(handler: CallbackHandler): Hono {
  const app = new Hono()
  app.post('/callbacks/card', (c) => handler.fetch(c.req.raw)) // recipe: Hono on Bun
  return app
}

/** The gateway client from the PAYWIRE_CARD_* variables (the simulator's, or your sandbox's). */
export function gatewayFromEnv(env: Record<string, string | undefined>): CardGateway {
  return new CardGateway({
    checkoutUrl: env['PAYWIRE_CARD_CHECKOUT_URL'] ?? '',
    s2sUrl: env['PAYWIRE_CARD_S2S_URL'] ?? '',
    merchantKey: env['PAYWIRE_CARD_MERCHANT_KEY'] ?? '',
    clientKey: env['PAYWIRE_CARD_CLIENT_KEY'] ?? '',
    password: env['PAYWIRE_CARD_PASSWORD'] ?? '',
    ...(env['PAYWIRE_CARD_S2S_CALLBACK_FIELDS']
      ? { s2sCallbackFields: env['PAYWIRE_CARD_S2S_CALLBACK_FIELDS'].split(',') }
      : {}),
  })
}

// Run directly (`bun run hono-bun.ts`): serve it. Imported (CI's check), only the functions above.
if ((import.meta as { main?: boolean }).main === true) {
  const handler = gatewayFromEnv(process.env).callbacks.handler({
    onEvent: (event) => console.info('card callback', event.type ?? event.action, event.status),
    store: new MemoryClaimStore(), // one process: in production a PostgresClaimStore or RedisClaimStore
  })
  Bun.serve({ port: Number(process.env['PORT'] ?? 3000), fetch: callbackApp(handler).fetch })
}
