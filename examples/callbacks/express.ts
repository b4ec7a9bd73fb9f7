/**
 * Card callbacks in Express 5: mount the handler on its route before any body parser. After
 * `express.raw()` it takes the Buffer; after `express.urlencoded()` or `express.json()` the signed
 * strings are gone, and it answers `500 body_already_parsed` so the gateway delivers again once the
 * route is fixed.
 *
 * Run: npx tsx examples/callbacks/express.ts (against the embedded simulator)
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CallbackHandler } from '@paywire/card-gateway'
import express from 'express'
import { runIfMain } from '../shared/run.js'
import { driveRecipe, post } from './drive.js'

/** The mount: the callback route first, the app's parsers after it. */
export function callbackApp(handler: CallbackHandler): express.Express {
  const app = express()
  app.post('/callbacks/card', handler.node) // recipe: Express 5
  app.use(express.json()) // the rest of the app's parsers, after the callback route
  return app
}

export async function main(): Promise<void> {
  await driveRecipe('express', async (handler) => {
    const app = callbackApp(handler)
    // What not to do, for the check: a parser on the route before the handler.
    app.post('/callbacks/parsed-first', express.urlencoded({ extended: false }), handler.node)
    const server: Server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return {
      deliver: (body, options) => post(`${base}/callbacks/${options?.readFirst ? 'parsed-first' : 'card'}`, body),
      close: async () => void server.close(),
    }
  })
}

runIfMain(import.meta.url, main)
