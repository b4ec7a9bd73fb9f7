/**
 * Card callbacks in a Cloudflare Worker: the handler takes the `Request`, and `ctx.waitUntil` keeps
 * the isolate alive until `onEvent` has run (without it, the runtime may end the run once the answer
 * is sent: the event stays recorded, and the `scheduled` handler's `recover()` runs it after its
 * lease). Needs the `nodejs_compat` flag. CI runs this file in workerd (scripts/check-runtimes.mjs)
 * against `paywire sim`.
 *
 * Deploy: wrangler with PAYWIRE_CARD_* as secrets and a cron trigger for `scheduled`.
 */
import { type CallbackHandler, CardGateway, MemoryClaimStore } from '@paywire/card-gateway'

/** The bindings this worker reads. */
export interface Env {
  readonly PAYWIRE_CARD_CHECKOUT_URL: string
  readonly PAYWIRE_CARD_S2S_URL: string
  readonly PAYWIRE_CARD_MERCHANT_KEY: string
  readonly PAYWIRE_CARD_CLIENT_KEY: string
  readonly PAYWIRE_CARD_PASSWORD: string
  /** Comma-separated: the fields your account signs S2S callbacks over (`paywire callback capture`). */
  readonly PAYWIRE_CARD_S2S_CALLBACK_FIELDS?: string
}

/** What the Workers runtime passes beside the request (a part of its `ExecutionContext`). */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void
}

/** The worker around a handler made once per isolate from its bindings. */
export function callbackWorker(makeHandler: (env: Env) => CallbackHandler) {
  let handler: CallbackHandler | undefined
  const handlerFor = (env: Env) => {
    handler ??= makeHandler(env)
    return handler
  }
  return {
    fetch(request: Request, env: Env, ctx: WorkerContext): Promise<Response> {
      const handler = handlerFor(env)
      return handler.fetch(request, { waitUntil: (p) => ctx.waitUntil(p) }) // recipe: Cloudflare Worker
    },
    // A cron trigger: runs what a frozen or ended isolate left.
    scheduled(_event: unknown, env: Env, ctx: WorkerContext): void {
      ctx.waitUntil(handlerFor(env).recover())
    },
  }
}

export default callbackWorker((env) =>
  new CardGateway({
    checkoutUrl: env.PAYWIRE_CARD_CHECKOUT_URL,
    s2sUrl: env.PAYWIRE_CARD_S2S_URL,
    merchantKey: env.PAYWIRE_CARD_MERCHANT_KEY,
    clientKey: env.PAYWIRE_CARD_CLIENT_KEY,
    password: env.PAYWIRE_CARD_PASSWORD,
    ...(env.PAYWIRE_CARD_S2S_CALLBACK_FIELDS
      ? { s2sCallbackFields: env.PAYWIRE_CARD_S2S_CALLBACK_FIELDS.split(',') }
      : {}),
  }).callbacks.handler({
    onEvent: (event) => console.log('card callback ran', event.type ?? event.action, event.status),
    // Workers Logs keep what the console says: a failed run with its cause, a refusal with its reason.
    onError: (error, event) =>
      console.error('card callback failed', event?.trans_id ?? event?.id, error, (error as Error)?.cause),
    onRefused: (refusal) => console.warn('card callback refused', refusal.status, refusal.reason, refusal.claimed),
    // An isolate's memory does not outlive it: in production, a ClaimStore your Worker can reach.
    store: new MemoryClaimStore(),
    recoverEveryMs: 0, // no interval in a Worker: the cron trigger recovers
  }),
)
