/**
 * Card callbacks in Hono on Node (@hono/node-server): the route gets a `Context`, the handler takes
 * the raw `Request` in it, `c.req.raw`. A body you already read (`await c.req.arrayBuffer()`) goes
 * to `handler.handle(bytes)`, whose status Hono's `c.body()` takes as it is.
 *
 * Run: npx tsx examples/callbacks/hono-node.ts (against the embedded simulator)
 */
import { serve } from '@hono/node-server'
import type { CallbackHandler } from '@paywire/card-gateway'
import { Hono } from 'hono'
import { runIfMain } from '../shared/run.js'
import { answerOf, driveRecipe, formRequest, post } from './drive.js'

/** The mount: `(c) => handler.fetch(c.req.raw)`, never `handler.fetch` itself (Hono passes a Context). */
export function callbackApp(handler: CallbackHandler): Hono {
  const app = new Hono()
  app.post('/callbacks/card', (c) => handler.fetch(c.req.raw)) // recipe: Hono
  // A body you hold already (another middleware read it): hand the bytes over.
  app.post('/callbacks/card-held', async (c) => {
    const a = await handler.handle(new Uint8Array(await c.req.arrayBuffer())) // recipe: Hono, a body you hold
    return c.body(a.body, a.status, a.headers)
  })
  return app
}

export async function main(): Promise<void> {
  await driveRecipe('hono (node)', async (handler) => {
    const app = callbackApp(handler)
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    const { port } = server.address() as { port: number }
    return {
      // Over HTTP as the gateway sends it; the body-read-first case in process (a middleware read it).
      deliver: async (body, options) =>
        options?.readFirst
          ? answerOf(await app.request(await formRequest(body, true)))
          : post(`http://127.0.0.1:${port}/callbacks/card`, body),
      close: async () => void server.close(),
    }
  })
}

runIfMain(import.meta.url, main)
