/**
 * Card callbacks in a Next.js App Router route handler (`app/api/callbacks/card/route.ts`): the
 * handler is a function of the `Request`, so `POST` hands it over, with Vercel's `waitUntil` so
 * `onEvent` runs before the function is frozen. Without it, a run cut by the freeze is taken up by
 * `recover()` (a cron route) after its lease. Needs the Node.js runtime (`runtime = 'nodejs'`).
 *
 * Run: npx tsx examples/callbacks/next-route.ts (calls POST with real Requests, no Next server)
 */
import type { CallbackHandler } from '@paywire/card-gateway'
import { waitUntil } from '@vercel/functions'
import { runIfMain } from '../shared/run.js'
import { answerOf, driveRecipe, formRequest } from './drive.js'

/** The route module's exports: `export const { POST, runtime } = callbackRoute(handler)`. */
export function callbackRoute(handler: CallbackHandler) {
  return {
    runtime: 'nodejs' as const,
    POST: (request: Request) => handler.fetch(request, { waitUntil }), // recipe: Next.js route handler
  }
}

export async function main(): Promise<void> {
  await driveRecipe('next.js route', async (handler) => {
    const { POST } = callbackRoute(handler)
    return { deliver: async (body, options) => answerOf(await POST(await formRequest(body, options?.readFirst))) }
  })
}

runIfMain(import.meta.url, main)
